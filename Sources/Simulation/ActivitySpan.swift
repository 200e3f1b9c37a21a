import Foundation

/// When simulated actions occurred: `actions` actions spread over the `days` days that end at
/// `end`, the action numbered `i` at a seeded point of the `i`-th of `actions` equal slots, so
/// the times rise with the actions' order (log order and the order they occurred agree) and
/// the same seed gives the same offsets from `end`.
///
/// These are the client's times (`occurredAt`), as an app that syncs a week of activity late
/// would send them; the store still records each action when it takes it.
package struct ActivitySpan: Sendable {
    /// How many days the actions span.
    package let days: Int
    /// How many actions share the span.
    package let actions: Int
    /// The end of the span, in whole microseconds since 1970 (the start of the second `end` is in).
    package let endMicroseconds: Int64
    private var random: SplitMix64
    private var index: Int64 = 0

    /// - Parameters:
    ///   - days: the span's length in days (1 or more).
    ///   - actions: how many actions share it (1 or more).
    ///   - seed: the same seed gives the same times for the same `end`.
    ///   - end: when the span ends (taken to the whole second before it).
    package init(days: Int, actions: Int, seed: UInt64, end: Date) {
        self.days = max(1, days)
        self.actions = max(1, actions)
        self.endMicroseconds = Int64(end.timeIntervalSince1970.rounded(.down)) * 1_000_000
        // Its own generator, so the actions a seed makes are the same with or without a span.
        self.random = SplitMix64(seed: seed ^ 0xD1B5_4A32_D192_ED03)
    }

    /// The span's first instant, in whole microseconds since 1970.
    package var startMicroseconds: Int64 { endMicroseconds - Int64(days) * 86_400_000_000 }

    /// When the next action occurred (the first call: the first action).
    package mutating func next() -> Date {
        let length = Int64(days) * 86_400_000_000
        let slot = length / Int64(actions)
        let within = slot > 0 ? Int64.random(in: 0..<slot, using: &random) : 0
        let offset = min(length - 1, index * length / Int64(actions) + within)
        index += 1
        return Date(timeIntervalSince1970: Double(startMicroseconds + offset) / 1_000_000)
    }
}
