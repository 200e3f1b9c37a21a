/// Computes a tree's root and the subtree roots of one proof from the leaves streamed in
/// order, in one pass and O(log n) memory: how a store makes a proof from its events' chain
/// hashes read in position order, without keeping the tree.
public struct MerkleProofBuilder {
    /// The tree's size: leaves after this many are ignored.
    public let size: UInt64
    /// The ranges in leaf order, each with its place in the proof.
    private let order: [(range: Range<UInt64>, slot: Int)]
    private var next = 0
    private var current = MerkleFrontier()
    private var hashes: [[UInt8]]
    private var whole = MerkleFrontier()

    /// A builder for the tree of `size` leaves and the proof made of `ranges` (from
    /// ``MerkleProof/inclusionRanges(index:size:)`` or ``MerkleProof/consistencyRanges(from:to:)``;
    /// empty for the root alone).
    public init(size: UInt64, ranges: [Range<UInt64>] = []) {
        self.size = size
        order = ranges.enumerated().map { (range: $0.element, slot: $0.offset) }.sorted { $0.range.lowerBound < $1.range.lowerBound }
        hashes = Array(repeating: [], count: ranges.count)
    }

    /// The leaves taken so far.
    public var count: UInt64 { whole.size }

    /// Whether it has every leaf it needs.
    public var isComplete: Bool { whole.size >= size }

    /// Takes the next leaf's hash (leaf ``count``).
    public mutating func add(leafHash: [UInt8]) {
        guard whole.size < size else { return }
        let index = whole.size
        whole.append(leafHash: leafHash)
        while next < order.count, index >= order[next].range.upperBound { next += 1 }
        guard next < order.count, order[next].range.contains(index) else { return }
        current.append(leafHash: leafHash)
        if index + 1 == order[next].range.upperBound {
            hashes[order[next].slot] = current.root
            current = MerkleFrontier()
            next += 1
        }
    }

    /// The root of the tree of ``size`` leaves and the proof's hashes, in proof order.
    /// - Throws: ``MerkleProofError/missingLeaves(expected:got:)`` when fewer leaves came.
    public func finish() throws(MerkleProofError) -> (root: [UInt8], proof: [[UInt8]]) {
        guard whole.size == size else { throw .missingLeaves(expected: size, got: whole.size) }
        return (whole.root, hashes)
    }

    /// The root and proof over leaf hashes held in memory (the first `size` of them).
    public static func build(size: UInt64, ranges: [Range<UInt64>] = [], leafHashes: [[UInt8]]) throws(MerkleProofError) -> (root: [UInt8], proof: [[UInt8]]) {
        var builder = MerkleProofBuilder(size: size, ranges: ranges)
        for hash in leafHashes.prefix(Int(clamping: size)) { builder.add(leafHash: hash) }
        return try builder.finish()
    }
}
