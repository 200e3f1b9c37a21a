import Foundation

/// Recording times: microsecond precision (what PostgreSQL keeps) and a fixed RFC 3339 text
/// form, `2026-11-30T11:15:21.123456Z`, that sorts as text and that people can read.
///
/// Formatting and parsing are hand-written because they sit on the append and read paths,
/// where Foundation's date formatters would cost more than the database.
public enum Timestamp {
    /// Microseconds since 1970-01-01T00:00:00Z.
    public static func microseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000_000).rounded(.down))
    }

    /// The date at a count of microseconds since 1970.
    public static func date(microseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(microseconds) / 1_000_000)
    }

    /// Now, truncated to the microsecond, so a recorded time reads back exactly.
    public static func now() -> Date {
        date(microseconds: microseconds(Date()))
    }

    /// `2026-11-30T11:15:21.123456Z` for a date (UTC, always 27 characters).
    public static func format(_ date: Date) -> String {
        format(microseconds: microseconds(date))
    }

    /// The text form of a count of microseconds since 1970.
    public static func format(microseconds: Int64) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(27)
        append(microseconds: microseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the 27-byte text form of a count of microseconds since 1970 to `bytes` (what
    /// ``format(microseconds:)`` returns, without making a string: view documents write
    /// hundreds of thousands of times).
    public static func append(microseconds: Int64, to bytes: inout [UInt8]) {
        var (days, micros) = microseconds.quotientAndRemainder(dividingBy: 86_400_000_000)
        if micros < 0 { micros += 86_400_000_000; days -= 1 }
        let (year, month, day) = civil(fromDays: days)
        let seconds = micros / 1_000_000
        let fraction = micros % 1_000_000
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: 27))
        bytes.withUnsafeMutableBufferPointer { all in
            let buffer = UnsafeMutableBufferPointer(rebasing: all[start...])
            func put(_ value: Int64, at offset: Int, digits: Int) {
                var rest = value
                for position in stride(from: offset + digits - 1, through: offset, by: -1) {
                    buffer[position] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                }
            }
            put(year, at: 0, digits: 4); buffer[4] = UInt8(ascii: "-")
            put(month, at: 5, digits: 2); buffer[7] = UInt8(ascii: "-")
            put(day, at: 8, digits: 2); buffer[10] = UInt8(ascii: "T")
            put(seconds / 3600, at: 11, digits: 2); buffer[13] = UInt8(ascii: ":")
            put(seconds / 60 % 60, at: 14, digits: 2); buffer[16] = UInt8(ascii: ":")
            put(seconds % 60, at: 17, digits: 2); buffer[19] = UInt8(ascii: ".")
            put(fraction, at: 20, digits: 6); buffer[26] = UInt8(ascii: "Z")
        }
    }

    /// Parses the text form written by ``format(_:)``; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// Parses the text form from raw UTF-8 bytes (as a database column hands them over).
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        parseMicroseconds(utf8: bytes).map { date(microseconds: $0) }
    }

    /// Parses the text form into microseconds since 1970.
    public static func parseMicroseconds(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard bytes.count == 27, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
              bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
              bytes[19] == UInt8(ascii: "."), bytes[26] == UInt8(ascii: "Z") else { return nil }
        func number(_ offset: Int, _ digits: Int) -> Int64? {
            var value: Int64 = 0
            for position in offset..<(offset + digits) {
                let digit = bytes[position] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int64(digit)
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              let fraction = number(20, 6),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return ((days * 86_400 + hour * 3600 + minute * 60 + second) * 1_000_000) + fraction
    }

    /// The day since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`); any year, also before 1970 and beyond 9999.
    public static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`), the inverse of ``daysFromCivil(year:month:day:)``.
    public static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
