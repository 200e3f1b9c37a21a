/// Hexadecimal text to bytes on hot paths (the kept Merkle tree's follower decodes every
/// event's chain hash): a 256-entry table, no branch per digit, no allocation.
public enum HexDecoding {
    /// Each byte's value as a hex digit (either case), or 0xFF for a byte that is not one.
    private static let values: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 48...57: UInt8(byte - 48)
        case 65...70: UInt8(byte - 55)
        case 97...102: UInt8(byte - 87)
        default: 0xFF
        }
    }

    /// Decodes the hex digits (lowercase or uppercase) of `text` into `output`, two digits a
    /// byte: `text` must have exactly twice `output.count` bytes.
    /// - Returns: false when it has another length or a byte that is not a hex digit (`output`
    ///   is then partly written and meaningless).
    /// Cost: O(output.count), one table look-up per digit.
    public static func decode(_ text: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer) -> Bool {
        guard text.count == 2 * output.count else { return false }
        return values.withUnsafeBufferPointer { table in
            var invalid: UInt8 = 0
            for index in 0..<output.count {
                let high = table[Int(text[2 * index])], low = table[Int(text[2 * index + 1])]
                invalid |= high | low
                output[index] = high << 4 | (low & 0x0F)
            }
            return invalid & 0xF0 == 0
        }
    }
}
