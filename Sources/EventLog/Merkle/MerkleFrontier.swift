/// The compact form of a Merkle tree (its right frontier): the roots of the perfect subtrees
/// its leaves decompose into, largest first, one for each bit set in ``size``. Enough to append
/// leaves and to compute the root without the leaves themselves: O(log n) hashes.
public struct MerkleFrontier: Sendable, Hashable {
    /// The number of leaves so far.
    public private(set) var size: UInt64
    /// The perfect subtrees' roots, leftmost (largest) first.
    public private(set) var hashes: [[UInt8]]

    /// The tree of no leaves.
    public init() {
        size = 0
        hashes = []
    }

    /// A frontier as kept somewhere: `hashes` must hold one 32-byte hash per bit set in `size`.
    /// - Throws: ``MerkleProofError/malformed(_:)`` when they do not.
    public init(size: UInt64, hashes: [[UInt8]]) throws(MerkleProofError) {
        guard hashes.count == size.nonzeroBitCount else {
            throw .malformed("a frontier of \(size) leaves has \(size.nonzeroBitCount) hashes, not \(hashes.count)")
        }
        guard hashes.allSatisfy({ $0.count == MerkleHash.size }) else {
            throw .malformed("a frontier hash is not \(MerkleHash.size) bytes")
        }
        self.size = size
        self.hashes = hashes
    }

    /// Appends one entry (hashed as a leaf).
    public mutating func append(entry: [UInt8]) {
        append(leafHash: MerkleHash.leaf(entry))
    }

    /// Appends one leaf by its leaf hash: merges the perfect subtrees it completes.
    /// Cost: O(log n) hashes at worst, two on average.
    public mutating func append(leafHash: [UInt8]) {
        var hash = leafHash
        var carry = size
        while carry & 1 == 1 {
            hash = MerkleHash.node(hashes.removeLast(), hash)
            carry >>= 1
        }
        hashes.append(hash)
        size += 1
    }

    /// The tree's root (RFC 9162 MTH): the subtrees folded from the right; ``MerkleHash/empty``
    /// for no leaves.
    public var root: [UInt8] {
        guard var root = hashes.last else { return MerkleHash.empty }
        for hash in hashes.dropLast().reversed() {
            root = MerkleHash.node(hash, root)
        }
        return root
    }
}
