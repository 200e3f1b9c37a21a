/// A store that keeps its log's Merkle tree (docs/AUDIT.md, *Where the tree is kept*): every
/// perfect subtree's root, keyed by (level, index), and each leaf's position, in owner-only
/// tables beside the log. The tree is derived data: it covers the first ``merkleTreeSize()``
/// events in position order, is extended by ``extendMerkleTree(limit:)`` (a follower, never
/// the append path), and `evtool verify` recomputes it from the chain hashes.
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

    /// The kept roots of these subtrees (level 0: leaf hashes), by key; a key the tree does not
    /// have is absent. Cost: O(keys × log n).
    func merkleNodes(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: [UInt8]]

    /// The leaf index of the event at `position`, or nil when the kept tree has no leaf there.
    func merkleLeafIndex(position: Int64) throws -> UInt64?

    /// The kept subtrees of one level from `index` on, in index order, at most `limit` (for
    /// `verify`); for level 0 each with its event's position.
    func merkleLevel(_ level: Int, from index: UInt64, limit: Int) throws -> [MerkleNodeRow]

    /// The number of subtrees kept at each level, from level 0 up (for `verify`: a tree of n
    /// leaves has n >> level at each level, no more).
    func merkleLevelCounts() throws -> [Int: UInt64]

    /// The positions and chain hashes of the events after `position`, in position order, at
    /// most `limit` (every committed row: for `verify` of the leaves). Cost: O(log n + limit).
    func chainHashes(after position: Int64, limit: Int) throws -> [(position: Int64, hash: String)]
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

/// One kept subtree root, as `verify` reads them level by level.
public struct MerkleNodeRow: Sendable, Hashable {
    /// Which subtree.
    public let key: MerkleNodeKey
    /// Its root (for a leaf, the leaf hash: SHA-256(0x00 ‖ chain hash)).
    public let hash: [UInt8]
    /// For a leaf, the position of its event; nil above level 0.
    public let position: Int64?

    /// A kept subtree root.
    public init(key: MerkleNodeKey, hash: [UInt8], position: Int64?) {
        self.key = key
        self.hash = hash
        self.position = position
    }
}
