// RFC 9162's hashes into buffers the caller owns: the kept tree's follower hashes every event
// (a leaf) and every 16 hashes (a tile's root) without allocating.

extension MerkleHash {
    /// Writes the leaf hash of the 32-byte entry at `entry`, SHA-256(0x00 ‖ entry), to the
    /// 32 bytes at `output` (which may be `entry`): one digest, no allocation.
    public static func leaf(entry: UnsafeRawPointer, into output: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(byteCount: 1 + size, alignment: 1) { message in
            message[0] = 0
            (message.baseAddress! + 1).copyMemory(from: entry, byteCount: size)
            SHA256Hasher.digest(UnsafeRawBufferPointer(message), into: output)
        }
    }

    /// Folds the `count` hashes at `hashes` (a power of two of them, 32 bytes each, one after
    /// another) pairwise, SHA-256(0x01 ‖ left ‖ right), up to their root, in place: the root
    /// ends in the first 32 bytes and the rest is overwritten. `count` − 1 digests, no allocation.
    public static func foldInPlace(_ hashes: UnsafeMutableRawPointer, count: Int) {
        withUnsafeTemporaryAllocation(byteCount: 1 + 2 * size, alignment: 1) { message in
            message[0] = 1
            var nodes = count
            while nodes > 1 {
                // Node k of the level above is written over the left half of pair k: pair
                // k' > k starts at 64 k' ≥ 32 k + 32, so no pair is overwritten before it is read.
                for pair in 0..<(nodes / 2) {
                    (message.baseAddress! + 1).copyMemory(from: hashes + 2 * size * pair, byteCount: 2 * size)
                    SHA256Hasher.digest(UnsafeRawBufferPointer(message), into: hashes + size * pair)
                }
                nodes /= 2
            }
        }
    }
}
