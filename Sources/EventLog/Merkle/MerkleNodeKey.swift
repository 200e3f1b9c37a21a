/// One perfect subtree of a Merkle tree, as a store keeps it: the subtree of the 2^`level`
/// leaves from `index` × 2^`level` (level 0 is a leaf).
public struct MerkleNodeKey: Sendable, Hashable, CustomStringConvertible {
    /// The subtree's height: 0 for a leaf.
    public let level: Int
    /// Its place among the subtrees of its level, from 0.
    public let index: UInt64

    /// The subtree of the 2^`level` leaves from `index` × 2^`level`.
    public init(level: Int, index: UInt64) {
        self.level = level
        self.index = index
    }

    /// The leaves it covers.
    public var leaves: Range<UInt64> { (index << UInt64(level))..<((index + 1) << UInt64(level)) }

    public var description: String { level == 0 ? "leaf \(index)" : "node (level \(level), index \(index))" }

    /// The perfect subtrees whose roots make the root of the leaves in `range` by RFC 9162's
    /// recursion (MTH), left to right; `range` must not be empty. For the ranges of a proof
    /// (``MerkleProof/inclusionRanges(index:size:)``, ``MerkleProof/consistencyRanges(from:to:)``)
    /// these are O(log n) subtrees.
    public static func parts(of range: Range<UInt64>) -> [MerkleNodeKey] {
        let count = range.upperBound - range.lowerBound
        if count & (count - 1) == 0, range.lowerBound % count == 0 {
            let level = count.trailingZeroBitCount
            return [MerkleNodeKey(level: level, index: range.lowerBound >> UInt64(level))]
        }
        let k = MerkleHash.split(count)
        return parts(of: range.lowerBound..<(range.lowerBound + k)) + parts(of: (range.lowerBound + k)..<range.upperBound)
    }

    /// The root of the leaves in `range` from the roots of its ``parts(of:)``, by the same recursion.
    /// - Throws: ``MerkleProofError/malformed(_:)`` naming a part `hashes` lacks.
    public static func root(of range: Range<UInt64>, hashes: [MerkleNodeKey: [UInt8]]) throws(MerkleProofError) -> [UInt8] {
        let count = range.upperBound - range.lowerBound
        if count & (count - 1) == 0, range.lowerBound % count == 0 {
            let level = count.trailingZeroBitCount
            let key = MerkleNodeKey(level: level, index: range.lowerBound >> UInt64(level))
            guard let hash = hashes[key] else { throw .malformed("the kept tree has no \(key)") }
            return hash
        }
        let k = MerkleHash.split(count)
        return MerkleHash.node(try root(of: range.lowerBound..<(range.lowerBound + k), hashes: hashes),
                               try root(of: (range.lowerBound + k)..<range.upperBound, hashes: hashes))
    }
}
