import EventLog
import Foundation
import Projections

/// Times and log points as people and clients write them (the same forms the command line takes).
public enum TimeText {
    /// Parses `2026-03-01`, `2026-03-01T10:00:00Z`, `2026-03-01T10:00:00.5+01:00` and the like
    /// (RFC 3339, or a date alone meaning its UTC midnight; a space or `t` may stand for the
    /// `T`, as RFC 3339 allows); nil for anything else.
    public static func parse(_ text: String) -> Date? {
        var text = withTSeparator(text)
        // RFC 3339 (section 5.6, NOTE) allows a lower-case z as well.
        if text.utf8.count > 19, text.utf8.last == 0x7A { text = String(text.dropLast()) + "Z" }
        if let exact = Timestamp.parse(text) { return exact }
        guard hasTimeShape(text) else { return nil }
        if let exact = microseconds(text) { return exact }
        let formatter = ISO8601DateFormatter()
        for options: ISO8601DateFormatter.Options in [[.withInternetDateTime, .withFractionalSeconds], [.withInternetDateTime], [.withFullDate]] {
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// A date and time of ``hasTimeShape(_:)``'s form to the microsecond, as stores keep times:
    /// a longer fraction (.NET writes 7 digits, Go 9) is cut there, not to Foundation's
    /// milliseconds; the offset is applied exactly. Nil for a date alone.
    static func microseconds(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count > 19 else { return nil }
        var index = 19
        var fraction: [UInt8] = []
        if bytes[index] == UInt8(ascii: ".") {
            index += 1
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { fraction.append(bytes[index]); index += 1 }
        }
        let digits = Array((fraction + Array("000000".utf8)).prefix(6))
        let utcText = String(decoding: bytes[0..<19] + [UInt8(ascii: ".")] + digits + [UInt8(ascii: "Z")], as: UTF8.self)
        guard let local = Timestamp.parse(utcText), index < bytes.count else { return nil }
        if bytes[index] == UInt8(ascii: "Z") { return local }
        guard bytes.count == index + 6 else { return nil }
        func number(_ at: Int) -> Int { Int(bytes[at] - 0x30) * 10 + Int(bytes[at + 1] - 0x30) }
        let offset = number(index + 1) * 3_600 + number(index + 4) * 60
        let microseconds = Timestamp.microseconds(local) - Int64(bytes[index] == UInt8(ascii: "-") ? -offset : offset) * 1_000_000
        return Timestamp.date(microseconds: microseconds)
    }

    /// `2026-03-01 10:00:00Z` (or `2026-03-01t10:00:00Z`) as `2026-03-01T10:00:00Z`: RFC 3339
    /// (section 5.6, NOTE) lets a space stand for the `T` between date and time; any other
    /// text comes back as it is.
    public static func withTSeparator(_ text: String) -> String {
        var bytes = Array(text.utf8)
        guard bytes.count > 11, bytes[10] == 0x20 || bytes[10] == 0x74, (0x30...0x39).contains(bytes[11]) else { return text }
        bytes[10] = 0x54
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether `text` looks like `YYYY-MM-DD` (a real calendar date), optionally followed by
    /// `THH:MM:SS` (in range), up to 9 fraction digits and `Z` or `±HH:MM` (an hour 00–23 and minutes 00–59). Checked before Foundation's formatter sees the text:
    /// ICU's date parser traps (SIGFPE) on some malformed times, such as
    /// `2026-01-01T00:0:00000.333…3Z` with a long fraction (found by scripts/fuzz.sh).
    public static func hasTimeShape(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        func digits(_ count: Int) -> Bool {
            guard index + count <= bytes.count, bytes[index..<(index + count)].allSatisfy({ (0x30...0x39).contains($0) }) else { return false }
            index += count
            return true
        }
        func byte(_ expected: Unicode.Scalar) -> Bool {
            guard index < bytes.count, UInt32(bytes[index]) == expected.value else { return false }
            index += 1
            return true
        }
        func number(_ range: Range<Int>) -> Int { bytes[range].reduce(0) { $0 * 10 + Int($1 - 0x30) } }
        guard digits(4), byte("-"), digits(2), byte("-"), digits(2) else { return false }
        // The formatter is lenient (2026-02-30 would be March 2nd): check the calendar here.
        let (year, month, day) = (number(0..<4), number(5..<7), number(8..<10))
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...12).contains(month), (1...days[month - 1]).contains(day) else { return false }
        if index == bytes.count { return true }
        guard byte("T"), digits(2), byte(":"), digits(2), byte(":"), digits(2) else { return false }
        guard number(11..<13) <= 23, number(14..<16) <= 59, number(17..<19) <= 59 else { return false }
        if byte(".") {
            let start = index
            while index < bytes.count, (0x30...0x39).contains(bytes[index]), index - start < 9 { index += 1 }
            guard index > start else { return false }
        }
        if byte("Z") { return index == bytes.count }
        guard byte("+") || byte("-"), digits(2), byte(":"), digits(2) else { return false }
        // An offset is an hour of the day and its minutes (RFC 3339's time-numoffset): +25:00 or
        // +00:60 is no time zone, and the formatter would take it as a day's shift.
        guard number((index - 5)..<(index - 3)) <= 23, number((index - 2)..<index) <= 59 else { return false }
        return index == bytes.count
    }

    /// `POSITION|TIME`: a whole number (0 or more) is a log position, anything else must be a time; nil when neither.
    public static func asOf(_ text: String) -> AsOf? {
        if let position = Int64(text) { return position >= 0 ? .position(position) : nil }
        return parse(text).map { .time($0) }
    }
}
