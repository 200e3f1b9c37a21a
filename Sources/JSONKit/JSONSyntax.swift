import Foundation

/// A fast, allocation-free check that bytes are exactly one JSON value (RFC 8259) in UTF-8,
/// and the members of a validated object (read with ``JSONScan``).
///
/// Stores pass payloads through untouched; this check makes them all refuse the same
/// malformed input (PostgreSQL's `json` type would refuse it anyway, SQLite would not).
public enum JSONSyntax {
    /// Why bytes are not the JSON expected.
    public struct JSONSyntaxError: Error, Sendable, Hashable {
        /// What is wrong and where (a byte offset).
        public var reason: String
        /// An error for `reason`.
        public init(reason: String) { self.reason = reason }
    }

    /// Deepest nesting accepted, so a hostile payload cannot exhaust the stack.
    public static let maximumDepth = 512

    /// Returns nil when `bytes` hold one valid JSON value, else what is wrong and where.
    public static func problem(in bytes: Data) -> String? {
        bytes.withUnsafeBytes { raw -> String? in
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            return parser.validateDocument()
        }
    }

    /// The members of a top-level JSON object as byte ranges of their values, for reading a
    /// record while keeping some values' exact bytes (an import keeps payloads byte for byte).
    /// - Returns: the members by name, or what is wrong with the text.
    public static func topLevelMembers(of bytes: Data) -> Result<[String: Range<Int>], JSONSyntaxError> {
        members(of: bytes, in: 0..<bytes.count)
    }

    /// What kind of JSON value valid `bytes` hold, for a message: "an array", "a string",
    /// "a number", "true", "false" or "null" (or "an object").
    static func kind(of bytes: UnsafeRawBufferPointer) -> String {
        switch bytes.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
        case UInt8(ascii: "{"): "an object"
        case UInt8(ascii: "["): "an array, not an object"
        case UInt8(ascii: "\""): "a string, not an object"
        case UInt8(ascii: "t"): "true, not an object"
        case UInt8(ascii: "f"): "false, not an object"
        case UInt8(ascii: "n"): "null, not an object"
        default: "a number, not an object"
        }
    }

    /// The members of the JSON object at byte offsets `range` of `bytes` (which must hold only
    /// that object, with optional white space); the value ranges are offsets into `bytes`.
    /// The bytes are validated first (``problem(in:)``), then read with the one scanner (``JSONScan``).
    public static func members(of bytes: Data, in range: Range<Int>) -> Result<[String: Range<Int>], JSONSyntaxError> {
        bytes.withUnsafeBytes { whole -> Result<[String: Range<Int>], JSONSyntaxError> in
            let raw = UnsafeRawBufferPointer(rebasing: whole[range])
            var parser = Parser(bytes: raw.bindMemory(to: UInt8.self))
            if let problem = parser.validateDocument() { return .failure(JSONSyntaxError(reason: problem)) }
            guard let entries = JSONScan.members(raw, offset: range.lowerBound) else {
                return .failure(JSONSyntaxError(reason: "it is \(Self.kind(of: raw))"))
            }
            var members: [String: Range<Int>] = [:]
            for entry in entries {
                // A valid name always unescapes, but for a lone surrogate (`"\ud800"`).
                guard let key = JSONScan.string(whole, (entry.name.lowerBound - 1)..<(entry.name.upperBound + 1)) else {
                    return .failure(JSONSyntaxError(reason: "a member name at offset \(entry.name.lowerBound - 1 - range.lowerBound) is not text"))
                }
                if members[key] != nil { return .failure(JSONSyntaxError(reason: "member '\(key)' appears twice")) }
                members[key] = entry.value
            }
            return .success(members)
        }
    }

    /// The first member name that appears twice in one object anywhere in `bytes` (which must
    /// be valid JSON: ``problem(in:)`` first), as a path (`results.listingIDs`, `artists[2].name`);
    /// nil when every object's names are distinct. RFC 8259 leaves duplicate names to the
    /// reader and Foundation keeps one of them silently: a request that sends two is refused
    /// instead of half-read.
    public static func duplicateMember(in bytes: Data) -> String? {
        bytes.withUnsafeBytes { whole -> String? in
            duplicate(whole, 0..<whole.count, path: "", depth: 0)
        }
    }

    private static func duplicate(_ whole: UnsafeRawBufferPointer, _ range: Range<Int>, path: String, depth: Int) -> String? {
        guard depth < maximumDepth else { return nil }
        let raw = UnsafeRawBufferPointer(rebasing: whole[range])
        if let entries = JSONScan.members(raw, offset: range.lowerBound) {
            var seen = Set<String>()
            for entry in entries {
                let name = JSONScan.string(whole, (entry.name.lowerBound - 1)..<(entry.name.upperBound + 1)) ?? ""
                let member = path.isEmpty ? name : path + "." + name
                if !seen.insert(name).inserted { return member }
                if let found = duplicate(whole, entry.value, path: member, depth: depth + 1) { return found }
            }
        } else if let elements = JSONScan.elements(raw, offset: range.lowerBound) {
            for (index, element) in elements.enumerated() {
                if let found = duplicate(whole, element, path: path + "[\(index)]", depth: depth + 1) { return found }
            }
        }
        return nil
    }

    private struct Parser {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0
        var depth = 0

        init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

        mutating func validateDocument() -> String? {
            skipWhitespace()
            if index == bytes.count { return "it is empty" }
            if let problem = value() { return problem }
            skipWhitespace()
            if index != bytes.count { return "unexpected bytes after the value at offset \(index)" }
            return nil
        }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value() -> String? {
            guard index < bytes.count else { return "unexpected end at offset \(index)" }
            switch bytes[index] {
            case UInt8(ascii: "{"): return object()
            case UInt8(ascii: "["): return array()
            case UInt8(ascii: "\""): return string()
            case UInt8(ascii: "t"): return literal("true")
            case UInt8(ascii: "f"): return literal("false")
            case UInt8(ascii: "n"): return literal("null")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
            default: return "unexpected byte at offset \(index)"
            }
        }

        mutating func literal(_ word: StaticString) -> String? {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return "truncated literal at offset \(index)" }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
                return "invalid literal at offset \(index)"
            }
            index += count
            return nil
        }

        mutating func object() -> String? {
            depth += 1
            if depth > JSONSyntax.maximumDepth { return "nesting deeper than \(JSONSyntax.maximumDepth)" }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return nil }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    return "expected a member name at offset \(index)"
                }
                if let problem = string() { return problem }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                    return "expected ':' at offset \(index)"
                }
                index += 1
                skipWhitespace()
                if let problem = value() { return problem }
                skipWhitespace()
                guard index < bytes.count else { return "unterminated object" }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "}") { index += 1; depth -= 1; return nil }
                return "expected ',' or '}' at offset \(index)"
            }
        }

        mutating func array() -> String? {
            depth += 1
            if depth > JSONSyntax.maximumDepth { return "nesting deeper than \(JSONSyntax.maximumDepth)" }
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return nil }
            while true {
                skipWhitespace()
                if let problem = value() { return problem }
                skipWhitespace()
                guard index < bytes.count else { return "unterminated array" }
                if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                if bytes[index] == UInt8(ascii: "]") { index += 1; depth -= 1; return nil }
                return "expected ',' or ']' at offset \(index)"
            }
        }

        mutating func string() -> String? {
            let start = index
            index += 1
            while index < bytes.count {
                // The common case first: a run of plain printable ASCII.
                var byte = bytes[index]
                while byte >= 0x20, byte < 0x80, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    index += 1
                    guard index < bytes.count else { return "unterminated string at offset \(start)" }
                    byte = bytes[index]
                }
                switch byte {
                case UInt8(ascii: "\""):
                    index += 1
                    return nil
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { return "unterminated string at offset \(start)" }
                    switch bytes[index] {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                         UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                        index += 1
                    case UInt8(ascii: "u"):
                        guard index + 4 < bytes.count else { return "truncated \\u escape at offset \(index)" }
                        for offset in 1...4 where !isHexDigit(bytes[index + offset]) {
                            return "invalid \\u escape at offset \(index)"
                        }
                        index += 5
                    default:
                        return "invalid escape at offset \(index)"
                    }
                case 0x00..<0x20:
                    return "unescaped control character in a string at offset \(index)"
                case 0x20..<0x80:
                    index += 1
                default:
                    if let problem = utf8Sequence() { return problem }
                }
            }
            return "unterminated string at offset \(start)"
        }

        /// Validates one multi-byte UTF-8 sequence (no overlongs, no surrogates, ≤ U+10FFFF).
        mutating func utf8Sequence() -> String? {
            let lead = bytes[index]
            let length: Int
            var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: return "invalid UTF-8 at offset \(index)"
            }
            guard index + length <= bytes.count else { return "truncated UTF-8 at offset \(index)" }
            let second = bytes[index + 1]
            guard second >= lower && second <= upper else { return "invalid UTF-8 at offset \(index)" }
            for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
                return "invalid UTF-8 at offset \(index)"
            }
            index += length
            return nil
        }

        mutating func number() -> String? {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { return "invalid number at offset \(start)" }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else {
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard index < bytes.count, isDigit(bytes[index]) else { return "invalid number at offset \(start)" }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
                guard index < bytes.count, isDigit(bytes[index]) else { return "invalid number at offset \(start)" }
                while index < bytes.count, isDigit(bytes[index]) { index += 1 }
            }
            return nil
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        func isHexDigit(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
        }
    }
}
