import EventLog
import Foundation

/// When an action occurred, by the client's clock: the `occurredAt` of the event's metadata
/// (``Commands/EventMetadata``), else, for an event whose metadata has none (a marker, an
/// imported foreign event), the time the store recorded it.
///
/// The activity charts plot this time: it is when the user acted. The recorded time (when the
/// log took the event, the store's clock) stays beside it in the tables.
enum OccurredTime {
    /// How far apart an action's occurred and recorded times may be before the report names it
    /// as occurring far from when it was recorded (either way): 30 days. A phone that syncs
    /// after a week offline stays under it; a reset clock (1970) or a year typed wrong does not.
    static let far: TimeInterval = 30 * 86_400

    /// Whether `occurred` is more than ``far`` from `recorded`, before or after.
    static func isFar(_ occurred: Date, recorded: Date) -> Bool { abs(occurred.timeIntervalSince(recorded)) > far }

    private static let key = Array(#""occurredAt":""#.utf8)

    /// The event's `occurredAt`, read straight from the metadata's bytes (the store overview
    /// reads every event: no JSON decode), or its recorded time.
    /// A `"occurredAt":"` in the bytes with an unescaped quote first is a key (a string value
    /// holds its quotes escaped); evtool writes metadata as one flat object.
    static func of(_ event: RecordedEvent) -> Date {
        let parsed: Date? = event.metadata.withUnsafeBytes { raw -> Date? in
            let bytes = raw.bindMemory(to: UInt8.self)
            guard bytes.count > key.count else { return nil }
            var index = 0
            let last = bytes.count - key.count
            while index <= last {
                if bytes[index] == 0x22, bytes[index + 1] == 0x6F {  // `"o`
                    var matches = true
                    for offset in 2..<key.count where bytes[index + offset] != key[offset] {
                        matches = false
                        break
                    }
                    if matches {
                        let start = index + key.count
                        var end = start
                        while end < bytes.count, bytes[end] != 0x22 { end += 1 }
                        guard end < bytes.count else { return nil }
                        return Timestamp.parse(utf8: UnsafeBufferPointer(rebasing: bytes[start..<end]))
                    }
                }
                index += 1
            }
            return nil
        }
        return parsed ?? event.recordedAt
    }
}
