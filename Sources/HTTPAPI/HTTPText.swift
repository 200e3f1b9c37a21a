/// HTTP's case-insensitive ASCII words (header names, the `Bearer` scheme, media types) and its
/// optional white space, handled on UTF-8 bytes: a request pays for no Unicode case mapping or
/// Foundation character set on its way to a handler.
package enum HTTPText {
    /// `text` with ASCII `A`–`Z` lowercased and every other byte kept; `text` itself when it has
    /// no uppercase ASCII letter (the common case: no copy).
    package static func lowercased(_ text: String) -> String {
        guard text.utf8.contains(where: isUppercase) else { return text }
        return String(decoding: text.utf8.map { isUppercase($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `text` equals `lowercase` (all lowercase ASCII) but for ASCII letter case.
    package static func equalsIgnoringCase<Text: StringProtocol>(_ text: Text, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return text.utf8.count == expected.count
            && zip(text.utf8, expected).allSatisfy { (isUppercase($0) ? $0 | 0x20 : $0) == $1 }
    }

    /// Whether `bytes` (a header name as received) spell `lowercase` in any case.
    package static func equalsIgnoringCase<Bytes: Collection<UInt8>>(bytes: Bytes, _ lowercase: StaticString) -> Bool {
        equalIgnoringCase(bytes, lowercase)
    }

    /// ``equalsIgnoringCase(bytes:_:)`` for the server's view of a request's bytes: the same
    /// code, specialized here (a generic function called from another module runs
    /// unspecialized, looking up its types' metadata on every call of every request).
    package static func equalsIgnoringCase(bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        equalIgnoringCase(bytes, lowercase)
    }

    @inline(__always)
    private static func equalIgnoringCase<Bytes: Collection<UInt8>>(_ bytes: Bytes, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return bytes.count == expected.count && zip(bytes, expected).allSatisfy { (isUppercase($0) ? $0 | 0x20 : $0) == $1 }
    }

    /// `text` without the spaces and horizontal tabs (HTTP's optional white space) at its ends.
    package static func trimmed<Text: StringProtocol>(_ text: Text) -> Substring {
        let bytes = Substring(text).utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return Substring(bytes[first...last])
    }

    /// Why a header field is not one RFC 9110 allows (§5.1, §5.5), or nil: its name must be a
    /// token (letters, digits and ``tokenSymbols``), its value free of control characters but
    /// the horizontal tab (a NUL, a bare CR or LF, DEL). Such a field is read differently by
    /// different HTTP implementations (a proxy in front may see another request), so the
    /// request is refused rather than guessed at.
    package static func fieldProblem<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) -> String? {
        problem(name: name, value: value)
    }

    /// ``fieldProblem(name:value:)`` for the server's view of a request's bytes, specialized
    /// here, as the specialized `equalsIgnoringCase(bytes:_:)` above is.
    package static func fieldProblem(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer) -> String? {
        problem(name: name, value: value)
    }

    @inline(__always)
    private static func problem<Name: Collection<UInt8>, Value: Collection<UInt8>>(name: Name, value: Value) -> String? {
        if name.isEmpty { return "a header has an empty name" }
        if let bad = name.firstIndex(where: { !isTokenByte($0) }) {
            return "the header name '\(shown(name))' has \(describe(name[bad])) at byte \(name.distance(from: name.startIndex, to: bad) + 1), which a header name may not hold"
        }
        if let bad = value.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return "the value of header '\(shown(name))' has \(describe(value[bad])) at byte \(value.distance(from: value.startIndex, to: bad) + 1), a control character a header value may not hold"
        }
        return nil
    }

    /// The symbols a token may hold besides ASCII letters and digits (RFC 9110 §5.6.2).
    static let tokenSymbols = Array("!#$%&'*+-.^_`|~".utf8)

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || tokenSymbols.contains(byte)
    }

    /// A byte for a message: printable ASCII as itself, the rest as `0xNN`.
    private static func describe(_ byte: UInt8) -> String {
        byte == 0x20 ? "a space" : byte > 0x20 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(hex(byte))"
    }

    /// A header name for a message: printable ASCII kept, every other byte as `\xNN`, at most 64 bytes.
    private static func shown<Name: Collection<UInt8>>(_ name: Name) -> String {
        name.prefix(64).map { $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "'") ? String(Character(Unicode.Scalar($0))) : "\\x\(hex($0))" }.joined()
            + (name.count > 64 ? "…" : "")
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
