import EventLog
import Foundation

extension LogRecord {
    /// The text of a JSON string literal at byte offsets `range` of `line` when it needs no decoding: quoted,
    /// valid UTF-8, no backslash and no control character (what every field of an evtool export
    /// is, but for hostile stream ids or types). Nil otherwise: the caller decodes it with a
    /// full JSON parser, which also gives the error. Import reads five such fields per line, and
    /// a parser call for each cost more than the database (issue 19).
    static func plainString(in line: Data, at range: Range<Int>) -> String? {
        line.withUnsafeBytes { (all: UnsafeRawBufferPointer) -> String? in
            let start = range.lowerBound, end = range.upperBound
            guard start >= 0, end <= all.count, end - start >= 2,
                  all[start] == UInt8(ascii: "\""), all[end - 1] == UInt8(ascii: "\"") else { return nil }
            let inner = UnsafeRawBufferPointer(rebasing: all[(start + 1)..<(end - 1)])
            for byte in inner where byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") || byte < 0x20 { return nil }
            return String(validating: inner, as: UTF8.self)
        }
    }

    /// The event id of an import line: the 36-character text form, either case.
    static func uuid(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { UUID(utf8: $0) } ?? UUID(uuidString: text)
    }
}
