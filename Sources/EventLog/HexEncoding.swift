/// Bytes to lowercase hexadecimal text on hot paths (the append writes every event's chain
/// hash as text): a table of the 16 digits, no allocation.
public enum HexEncoding {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Writes the lowercase hex digits of `bytes` to the `2 * bytes.count` bytes at `output`.
    public static func encode(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) {
        digits.withUnsafeBufferPointer { table in
            for (index, byte) in bytes.enumerated() {
                output.storeBytes(of: table[Int(byte >> 4)], toByteOffset: 2 * index, as: UInt8.self)
                output.storeBytes(of: table[Int(byte & 0x0F)], toByteOffset: 2 * index + 1, as: UInt8.self)
            }
        }
    }
}
