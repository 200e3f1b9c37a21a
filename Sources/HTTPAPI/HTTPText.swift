/// HTTP's case-insensitive ASCII words (header names, the `Bearer` scheme, media types) and its
/// optional white space, handled on UTF-8 bytes: a request pays for no Unicode case mapping or
/// Foundation character set on its way to a handler.
public enum HTTPText {
    /// `text` with ASCII `A`–`Z` lowercased and every other byte kept; `text` itself when it has
    /// no uppercase ASCII letter (the common case: no copy).
    public static func lowercased(_ text: String) -> String {
        guard text.utf8.contains(where: isUppercase) else { return text }
        return String(decoding: text.utf8.map { isUppercase($0) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Whether `text` equals `lowercase` (all lowercase ASCII) but for ASCII letter case.
    public static func equalsIgnoringCase<Text: StringProtocol>(_ text: Text, _ lowercase: StaticString) -> Bool {
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        return text.utf8.count == expected.count
            && zip(text.utf8, expected).allSatisfy { (isUppercase($0) ? $0 | 0x20 : $0) == $1 }
    }

    /// `text` without the spaces and horizontal tabs (HTTP's optional white space) at its ends.
    public static func trimmed<Text: StringProtocol>(_ text: Text) -> Substring {
        let bytes = Substring(text).utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return Substring(bytes[first...last])
    }

    private static func isUppercase(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") }
    private static func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
}
