/// Extends a kept Merkle tree (its tiles, ``MerkleTile``) leaf by leaf and collects the tiles
/// to write: every tile a leaf completes and, at the end, the partial last tile of each level.
/// Starts from the tree's open tiles (``MerkleTile/openTileKeys(size:)``). About two SHA-256
/// digests per leaf (the leaf's, and 15 per 16 leaves for the level above); memory O(log n).
public struct MerkleTileGrowth: Sendable {
    /// The number of leaves so far.
    public private(set) var size: UInt64
    /// The hashes of the last, partial tile of each tile level (empty: none is open).
    private var open: [[[UInt8]]]
    private var firstPosition: Int64?
    private var lastPosition: Int64?
    private var completed: [MerkleTile] = []
    private var touched = Set<Int>()

    /// Growth from a tree of `size` leaves whose open tiles are `tiles` (each tile of
    /// ``MerkleTile/openTileKeys(size:)``, by key; others are ignored).
    /// - Throws: ``MerkleProofError/malformed(_:)`` when one is missing or has the wrong count.
    public init(size: UInt64, tiles: [MerkleNodeKey: MerkleTile]) throws(MerkleProofError) {
        self.size = size
        open = []
        for key in MerkleTile.openTileKeys(size: size) {
            let tier = key.level / MerkleTile.height
            let expected = Int((size >> UInt64(key.level)) % UInt64(MerkleTile.width))
            guard let tile = tiles[key], tile.hashes.count == expected, tile.hashes.allSatisfy({ $0.count == MerkleHash.size }) else {
                throw .malformed("the kept tree of \(size) leaves lacks its partial tile (level \(key.level), index \(key.index)) of \(expected) hashes")
            }
            while open.count <= tier { open.append([]) }
            open[tier] = tile.hashes
            if key.level == 0 {
                firstPosition = tile.firstPosition
                lastPosition = tile.lastPosition
            }
        }
    }

    /// Adds the next leaf, by its leaf hash, for the event at `position`.
    public mutating func add(leafHash: [UInt8], position: Int64) {
        if open.isEmpty || open[0].isEmpty { firstPosition = position }
        lastPosition = position
        push(leafHash, tier: 0, node: size)
        size += 1
    }

    private mutating func push(_ hash: [UInt8], tier: Int, node: UInt64) {
        while open.count <= tier { open.append([]) }
        open[tier].append(hash)
        touched.insert(tier)
        guard open[tier].count == MerkleTile.width else { return }
        let index = node / UInt64(MerkleTile.width)
        let full = open[tier]
        open[tier] = []
        completed.append(tile(tier: tier, index: index, hashes: full))
        push(MerkleTile.root(of: full[...]), tier: tier + 1, node: index)
    }

    private func tile(tier: Int, index: UInt64, hashes: [[UInt8]]) -> MerkleTile {
        MerkleTile(level: tier * MerkleTile.height, index: index, hashes: hashes,
                   firstPosition: tier == 0 ? firstPosition : nil, lastPosition: tier == 0 ? lastPosition : nil)
    }

    /// The tiles to write for the leaves added: each completed one and each partial last one
    /// (a partial tile kept before that grew is written again whole), lowest level first.
    public var tiles: [MerkleTile] {
        var all = completed
        for (tier, hashes) in open.enumerated() where !hashes.isEmpty && touched.contains(tier) {
            let level = tier * MerkleTile.height
            all.append(tile(tier: tier, index: (size >> UInt64(level)) / UInt64(MerkleTile.width), hashes: hashes))
        }
        return all
    }
}
