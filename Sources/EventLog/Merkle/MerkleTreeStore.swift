/// A store that keeps its log's Merkle tree (docs/explanation/audit.md, *Where the tree is kept*) as tiles
/// (``MerkleTile``): the leaf hashes 16 to a row, and the nodes of every level that is a
/// multiple of 4 likewise, in owner-only tables beside the log; any other node is computed from
/// the tile below it. The tree is derived data: it covers the first ``merkleTreeState()`` size
/// events in position order, is extended by ``extendMerkleTree(limit:)`` (a follower, never the
/// append path), and `evtool verify` recomputes it from the chain hashes.
public protocol MerkleTreeStore: EventStore {
    /// How many events the kept tree covers (its leaves), and the position of the last one
    /// (0 for none). Cost: O(log n).
    func merkleTreeState() throws -> MerkleTreeState

    /// Extends the kept tree, in one transaction, by at most `limit` of the events after its
    /// last leaf, in position order (on PostgreSQL only events no running transaction can
    /// still precede, as ``EventStore/readAll(after:limit:)`` hands out). Several processes
    /// may extend at once: one of them writes each leaf.
    /// - Returns: the tree's state after, and how many leaves this call added.
    /// - Throws: ``EventStoreError/permissionDenied(_:)`` or ``EventStoreError/unavailable(_:)``
    ///   when this connection may not write the tree (a read-only file, the auditor role).
    func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int)

    /// The kept tiles with these keys (``MerkleTile/key``); a key the tree does not have is
    /// absent. One query: O(keys × log n).
    func merkleTiles(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: MerkleTile]

    /// The leaf index of the event at `position`, or nil when the kept tree has no leaf there.
    /// Cost: O(log n) (the level-0 tile by its positions, then at most 16 events).
    func merkleLeafIndex(position: Int64) throws -> UInt64?

    /// The kept tiles of one level from `index` on, in index order, at most `limit` (for `verify`).
    func merkleTiles(level: Int, from index: UInt64, limit: Int) throws -> [MerkleTile]

    /// The number of hashes kept at each tile level (for `verify`: a tree of n leaves has
    /// n >> level at each level, no more).
    func merkleLevelCounts() throws -> [Int: UInt64]

    /// The positions and chain hashes of the events after `position`, in position order, at
    /// most `limit` (every committed row: for `verify` of the leaves). Cost: O(log n + limit).
    func chainHashes(after position: Int64, limit: Int) throws -> [(position: Int64, hash: String)]
}

extension MerkleTreeStore {
    /// The roots of these subtrees (level 0: leaf hashes), by key, from the tiles that hold them
    /// or their parts (one query, at most 15 SHA-256 digests per key); a key the kept tree
    /// does not cover is absent.
    public func merkleNodes(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        let tiles = try merkleTiles(Set(keys.map(MerkleTile.tileKey(holding:))))
        var found: [MerkleNodeKey: [UInt8]] = [:]
        for key in keys {
            if let hash = tiles[MerkleTile.tileKey(holding: key)]?.hash(of: key) { found[key] = hash }
        }
        return found
    }
}

/// How much of the log a kept Merkle tree covers.
public struct MerkleTreeState: Sendable, Hashable {
    /// The number of leaves: the first `size` events in position order.
    public let size: UInt64
    /// The position of the last leaf's event; 0 for the empty tree.
    public let position: Int64

    /// A tree of `size` leaves whose last is the event at `position`.
    public init(size: UInt64, position: Int64) {
        self.size = size
        self.position = position
    }
}

extension MerkleTreeStore {
    /// The kept leaf hashes from leaf `index` on, at most `limit`, read from the level-0 tiles;
    /// fewer when the tree ends (or a tile is missing) before.
    public func merkleLeafHashes(from index: UInt64, limit: Int) throws -> [[UInt8]] {
        guard limit > 0 else { return [] }
        let width = UInt64(MerkleTile.width)
        let firstTile = index / width
        let tileCount = (index % width + UInt64(limit) + width - 1) / width
        var leaves: [[UInt8]] = []
        var expected = firstTile
        for tile in try merkleTiles(level: 0, from: firstTile, limit: Int(tileCount)) {
            guard tile.index == expected else { break }
            expected += 1
            for (offset, hash) in tile.hashes.enumerated() where leaves.count < limit && tile.index * width + UInt64(offset) >= index {
                leaves.append(hash)
            }
        }
        return leaves
    }
}
