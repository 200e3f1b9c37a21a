/// Extends a kept Merkle tree leaf by leaf and says which perfect subtrees each leaf
/// completes, so that a store can write them: the leaf itself (level 0) and, when it closes
/// subtrees, their roots (levels 1, 2 …). Starts from the tree's frontier (the roots of the
/// perfect subtrees its size decomposes into, see ``frontierKeys(size:)``). Memory: O(log n).
public struct MerkleTreeGrowth: Sendable {
    /// The number of leaves so far.
    public private(set) var size: UInt64
    private var frontier: [[UInt8]]

    /// The keys of the frontier of a tree of `size` leaves, largest subtree first: one per bit
    /// set in `size`.
    public static func frontierKeys(size: UInt64) -> [MerkleNodeKey] {
        var keys: [MerkleNodeKey] = []
        var start: UInt64 = 0
        for level in stride(from: 63, through: 0, by: -1) where (size >> UInt64(level)) & 1 == 1 {
            keys.append(MerkleNodeKey(level: level, index: start >> UInt64(level)))
            start += UInt64(1) << UInt64(level)
        }
        return keys
    }

    /// Growth from a tree of `size` leaves whose frontier (``frontierKeys(size:)``, in that
    /// order) has the hashes `frontier`.
    /// - Throws: ``MerkleProofError/malformed(_:)`` when the count or a length is wrong.
    public init(size: UInt64, frontier: [[UInt8]]) throws(MerkleProofError) {
        guard frontier.count == size.nonzeroBitCount, frontier.allSatisfy({ $0.count == MerkleHash.size }) else {
            throw .malformed("the kept tree of \(size) leaves has \(frontier.count) frontier hashes, not \(size.nonzeroBitCount) of \(MerkleHash.size) bytes")
        }
        self.size = size
        self.frontier = frontier
    }

    /// Adds the next leaf (by its leaf hash).
    /// - Returns: the subtrees it completes, the leaf first, each with its root.
    public mutating func add(leafHash: [UInt8]) -> [(key: MerkleNodeKey, hash: [UInt8])] {
        var completed = [(key: MerkleNodeKey(level: 0, index: size), hash: leafHash)]
        var hash = leafHash
        var carry = size
        var level = 0
        while carry & 1 == 1 {
            hash = MerkleHash.node(frontier.removeLast(), hash)
            carry >>= 1
            level += 1
            completed.append((MerkleNodeKey(level: level, index: carry), hash))
        }
        frontier.append(hash)
        size += 1
        return completed
    }

    /// The root of the tree so far (``MerkleHash/empty`` for no leaves).
    public var root: [UInt8] {
        guard var root = frontier.last else { return MerkleHash.empty }
        for hash in frontier.dropLast().reversed() { root = MerkleHash.node(hash, root) }
        return root
    }
}
