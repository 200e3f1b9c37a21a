import Foundation

/// Hashes, keys and signatures read from text that someone else may have written (checkpoints,
/// proof documents, key files, archive and export lines, documents a server served): only the
/// one text evtool writes for the bytes is read. Base64 and hex have several texts for the
/// same bytes (base64's unused low bits and extra `=`, hex's two cases); a file whose text
/// changed is then refused instead of read as the same file, so a signature or a byte-for-byte
/// comparison covers everything the file says.
///
/// The stores' own columns are read with the lenient ``Swift/Array/init(hexadecimal:)``: verify
/// compares their text with the computed text and names a changed one there.
public enum CanonicalText {
    /// The bytes of `text` when it is canonical base64 (RFC 4648 §4, §3.5): the standard
    /// alphabet, `=` padding to a multiple of 4 characters, the unused low bits of the last
    /// character zero, no whitespace or line break: what `Data.base64EncodedString()` writes.
    /// - Returns: nil for any other text, including another text of the same bytes.
    /// Cost: O(text), one decode and one encode.
    public static func base64<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let string = String(text)
        guard let data = Data(base64Encoded: string) else { return nil }
        guard data.base64EncodedString().utf8.elementsEqual(string.utf8) else { return nil }
        return [UInt8](data)
    }

    /// The bytes of `text` when it is lower-case hexadecimal, two digits a byte (`0-9`, `a-f`):
    /// what ``Swift/Array/hexString`` writes.
    /// - Returns: nil for any other text (an upper-case digit, an odd length, another character).
    /// Cost: O(text).
    @inlinable
    public static func lowercaseHex<Text: StringProtocol>(_ text: Text) -> [UInt8]? {
        let digits = text.utf8
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high {
                bytes.append(first << 4 | value)
                high = nil
            } else {
                high = value
            }
        }
        return bytes
    }
}
