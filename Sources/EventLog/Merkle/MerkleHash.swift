/// The hashing of RFC 9162 §2.1 (Certificate Transparency's Merkle tree): a leaf is
/// SHA-256(0x00 ‖ entry), an interior node SHA-256(0x01 ‖ left ‖ right), and the tree of no
/// entries has the hash of the empty string. evtool's entries are the events' chain hashes
/// (32 bytes each), in position order (docs/explanation/audit.md).
public enum MerkleHash {
    /// The number of bytes of every hash.
    public static let size = 32

    /// The root of the tree of no entries: SHA-256 of nothing.
    public static let empty: [UInt8] = SHA256Hasher.digest(UnsafeRawBufferPointer(start: nil, count: 0))

    /// The leaf hash of one entry: SHA-256(0x00 ‖ entry).
    public static func leaf(_ entry: [UInt8]) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: entry.count + 1)
        buffer.replaceSubrange(1..., with: entry)
        return buffer.withUnsafeBytes { SHA256Hasher.digest($0) }
    }

    /// The hash of an interior node: SHA-256(0x01 ‖ left ‖ right).
    public static func node(_ left: [UInt8], _ right: [UInt8]) -> [UInt8] {
        var buffer = [UInt8](repeating: 1, count: 1)
        buffer.reserveCapacity(1 + left.count + right.count)
        buffer += left
        buffer += right
        return buffer.withUnsafeBytes { SHA256Hasher.digest($0) }
    }

    /// The largest power of two smaller than `count` (RFC 9162's split point `k`); `count` > 1.
    static func split(_ count: UInt64) -> UInt64 {
        precondition(count > 1, "a tree of one leaf has no split")
        return UInt64(1) << (63 - (count - 1).leadingZeroBitCount)
    }
}
