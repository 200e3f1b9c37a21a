/// The one JSON string escaper of the package: quotes, backslashes and control characters
/// escaped (`\n`, `\r`, `\t`, the others as `\u00XX`), everything else as it is (no `\/`,
/// no escaping of non-ASCII text), so the output stays readable and byte-stable.
public enum JSONString {
    /// A JSON string literal for `text`, quotes included.
    @inlinable public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the JSON string literal for `text` (quotes included) to `bytes`.
    /// Cost: one pass over the text; text without anything to escape is copied in one go.
    @inlinable public static func append(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = text.utf8
        let copied = utf8.withContiguousStorageIfAvailable { buffer -> Bool in
            guard !buffer.contains(where: needsEscape) else { return false }
            bytes.append(contentsOf: buffer)
            return true
        }
        if copied != true {
            for byte in utf8 { appendEscaping(byte, to: &bytes) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    @usableFromInline @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    @usableFromInline static func appendEscaping(_ byte: UInt8, to bytes: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      hex.utf8Start[Int(byte >> 4)], hex.utf8Start[Int(byte & 0xF)]])
        default: bytes.append(byte)
        }
    }
}
