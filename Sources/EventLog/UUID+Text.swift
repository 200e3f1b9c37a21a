import Foundation

extension UUID {
    /// The canonical lowercase text form (`8-4-4-4-12` hex digits), as PostgreSQL prints it.
    public var lowercaseString: String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        return withUnsafeBytes(of: uuid) { raw in
            String(unsafeUninitializedCapacity: 36) { out in
                var index = 0
                for (offset, byte) in raw.enumerated() {
                    if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                        out[index] = UInt8(ascii: "-"); index += 1
                    }
                    out[index] = hex[Int(byte >> 4)]
                    out[index + 1] = hex[Int(byte & 0x0F)]
                    index += 2
                }
                return 36
            }
        }
    }

    /// Parses the 36-character text form (either case) from raw UTF-8 bytes; nil if malformed.
    public init?(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        guard bytes.count == 36 else { return nil }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let parsed = withUnsafeMutableBytes(of: &value) { out -> Bool in
            var source = 0
            for target in 0..<16 {
                if source == 8 || source == 13 || source == 18 || source == 23 {
                    guard bytes[source] == UInt8(ascii: "-") else { return false }
                    source += 1
                }
                guard let high = UUID.nibble(bytes[source]), let low = UUID.nibble(bytes[source + 1]) else { return false }
                out[target] = high << 4 | low
                source += 2
            }
            return true
        }
        guard parsed else { return nil }
        self.init(uuid: value)
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
