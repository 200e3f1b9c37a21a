import EventLog
import Foundation

/// How the report's charts group UTC days into bars and points, so that a chart's size and
/// cost depend on the days that hold events, never on the span between the first and the last.
///
/// A chart has one slot per bucket that holds events, side by side in time order, whatever
/// time lies between them (a gap is marked, with how long it is). A bucket is a day while the
/// days with events are at most ``limit``; else every bucket grows to the smallest of a week,
/// a month, a year, a decade, a century or a millennium that keeps them at most ``limit``
/// (9999 years hold 10 millennia). An action at 1970-01-01 beside a week of actions in 2026 is
/// one more slot, not 20,000 empty days.
enum DayBuckets {
    /// The most slots a chart has.
    static let limit = 400

    /// The span one bar or point stands for.
    enum Size: Int, CaseIterable, Sendable {
        case day, week, month, year, decade, century, millennium

        /// The size's name in a sentence ("per day", "per week" …).
        var name: String { "\(self)" }
    }

    /// One slot of a chart: the UTC days `first...last` (days since 1970-01-01) it stands for.
    struct Bucket: Sendable, Hashable {
        /// The first day of the bucket.
        var first: Int64
        /// The last day of the bucket.
        var last: Int64
        /// The bucket's size.
        var size: Size

        /// The bucket in words: `2026-03-01`, `week of 2026-03-02`, `2026-03`, `2026`, `2020s`, `2000–2099`, `2000–2999`.
        var label: String {
            let year = civil(first).year
            switch size {
            case .day: return HTML.day(first)
            case .week: return "week of \(HTML.day(first))"
            case .month: return String(HTML.day(first).prefix(7))
            case .year: return String(year)
            case .decade: return "\(year)s"
            case .century: return "\(year)–\(year + 99)"
            case .millennium: return "\(year)–\(year + 999)"
            }
        }
    }

    /// A paragraph saying what a chart's slot stands for, beside charts of `size` over `days` days with events.
    static func caption(_ size: Size, days: Int) -> String {
        let slot = size == .day ? "one day that holds events" : "one \(size.name) that holds events (\(days.counted("day")) hold events: more than \(limit), the most a chart shows)"
        return "<p class=\"muted chart-note\" data-bucket=\"\(size.name)\">Each bar or point is \(slot); the charts leave out the time between, however long, and a dashed line marks each gap (hover it for its length).</p>"
    }

    /// The smallest size that groups `days` (each day with events, in any order, repeats allowed)
    /// into at most ``limit`` buckets.
    static func size(for days: some Sequence<Int64>) -> Size {
        let distinct = Set(days)
        for size in Size.allCases where size != .millennium {
            if size == .day ? distinct.count <= limit : Set(distinct.map { start(of: $0, size) }).count <= limit { return size }
        }
        return .millennium
    }

    /// The bucket of `size` that holds `day`.
    static func bucket(of day: Int64, _ size: Size) -> Bucket {
        let first = start(of: day, size)
        let next: Int64
        switch size {
        case .day: next = first + 1
        case .week: next = first + 7
        default:
            let (year, month, _) = civil(first)
            switch size {
            case .month: next = month == 12 ? days(year: year + 1, month: 1, day: 1) : days(year: year, month: month + 1, day: 1)
            case .year: next = days(year: year + 1, month: 1, day: 1)
            case .decade: next = days(year: year + 10, month: 1, day: 1)
            case .century: next = days(year: year + 100, month: 1, day: 1)
            default: next = days(year: year + 1_000, month: 1, day: 1)
            }
        }
        return Bucket(first: first, last: next - 1, size: size)
    }

    /// The first day of the bucket of `size` that holds `day` (weeks start on Monday).
    static func start(of day: Int64, _ size: Size) -> Int64 {
        switch size {
        case .day: return day
        case .week:
            // 1970-01-01 was a Thursday: 3 days after a Monday.
            let sinceMonday = ((day + 3) % 7 + 7) % 7
            return day - sinceMonday
        default:
            let (year, month, _) = civil(day)
            switch size {
            case .month: return days(year: year, month: month, day: 1)
            case .year: return days(year: year, month: 1, day: 1)
            case .decade: return days(year: floor(year, 10), month: 1, day: 1)
            case .century: return days(year: floor(year, 100), month: 1, day: 1)
            default: return days(year: floor(year, 1_000), month: 1, day: 1)
            }
        }
    }

    /// Per-day values that add up (events by type): summed over each bucket, in time order.
    /// `days` holds only days with values, in any order.
    static func summed(_ days: [(day: Int64, values: [Int])], _ size: Size) -> [(bucket: Bucket, values: [Int])] {
        var sums: [Int64: [Int]] = [:]
        for entry in days {
            let first = start(of: entry.day, size)
            var values = sums[first] ?? Array(repeating: 0, count: entry.values.count)
            for (index, value) in entry.values.enumerated() where index < values.count { values[index] += value }
            sums[first] = values
        }
        return sums.keys.sorted().map { (bucket(of: $0, size), sums[$0] ?? []) }
    }

    /// Per-day levels (favorites held at a day's end, users so far): each bucket takes the level
    /// of its last day with one. `days` holds only days with a level, in any order.
    static func lastLevel(_ days: [(day: Int64, count: Int)], _ size: Size) -> [(bucket: Bucket, count: Int)] {
        var last: [Int64: (day: Int64, count: Int)] = [:]
        for entry in days {
            let first = start(of: entry.day, size)
            if let held = last[first], held.day > entry.day { continue }
            last[first] = entry
        }
        return last.keys.sorted().map { (bucket(of: $0, size), last[$0]?.count ?? 0) }
    }

    /// The proleptic Gregorian date of a day since 1970-01-01.
    static func civil(_ day: Int64) -> (year: Int64, month: Int64, day: Int64) { Timestamp.civil(fromDays: day) }

    /// The day since 1970-01-01 of a proleptic Gregorian date.
    static func days(year: Int64, month: Int64, day: Int64) -> Int64 { Timestamp.daysFromCivil(year: year, month: month, day: day) }

    private static func floor(_ year: Int64, _ step: Int64) -> Int64 { (year >= 0 ? year : year - step + 1) / step * step }
}
