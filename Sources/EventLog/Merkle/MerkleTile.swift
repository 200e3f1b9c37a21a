/// One tile of a kept Merkle tree (docs/explanation/audit.md, *Where the tree is kept*), as Tessera keeps
/// its tree: the hashes of up to ``width`` consecutive nodes of one level that is a multiple of
/// ``height`` (level 0: leaf hashes; level 4: the roots of 16-leaf subtrees; …). Tile (L, t)
/// holds the nodes (L, 16t) … (L, 16t + 15): a full tile is the subtree (L + 4, t) without its
/// inner nodes, which are computed from it on demand (at most 15 SHA-256 digests). The last
/// tile of each level may be partial, and grows as the tree does. A level-0 tile also records
/// the positions of its first and last leaf's events (how an event's leaf is found).
public struct MerkleTile: Sendable, Hashable {
    /// The levels a tile spans: tiles are kept at levels 0, 4, 8 …
    public static let height = 4
    /// The most hashes a tile holds (2^``height``).
    public static let width = 16

    /// The level of its hashes (a multiple of ``height``).
    public let level: Int
    /// Its place among the tiles of its level, from 0.
    public let index: UInt64
    /// The hashes of nodes (level, 16·index) … in order: 1 to ``width`` of them.
    public let hashes: [[UInt8]]
    /// For a level-0 tile, the position of its first leaf's event; nil above.
    public let firstPosition: Int64?
    /// For a level-0 tile, the position of its last leaf's event; nil above.
    public let lastPosition: Int64?

    /// A tile as kept.
    public init(level: Int, index: UInt64, hashes: [[UInt8]], firstPosition: Int64? = nil, lastPosition: Int64? = nil) {
        self.level = level
        self.index = index
        self.hashes = hashes
        self.firstPosition = firstPosition
        self.lastPosition = lastPosition
    }

    /// Which tile it is: level and index (not a node's key).
    public var key: MerkleNodeKey { MerkleNodeKey(level: level, index: index) }

    /// The key of the node whose hash is at `offset`.
    public func nodeKey(_ offset: Int) -> MerkleNodeKey {
        MerkleNodeKey(level: level, index: index * UInt64(Self.width) + UInt64(offset))
    }

    /// The tile holding `node` (a node at a tile level) or the nodes `node` is made of (a node
    /// between tile levels).
    public static func tileKey(holding node: MerkleNodeKey) -> MerkleNodeKey {
        let base = node.level - node.level % height
        let first = node.index << UInt64(node.level - base)
        return MerkleNodeKey(level: base, index: first / UInt64(width))
    }

    /// The hash of `node` from the tile that holds it or its parts (``tileKey(holding:)``), or
    /// nil when the tile does not have them all yet.
    public func hash(of node: MerkleNodeKey) -> [UInt8]? {
        let depth = node.level - level
        guard depth >= 0, depth < Self.height else { return nil }
        let first = node.index << UInt64(depth)
        guard first / UInt64(Self.width) == index else { return nil }
        let offset = Int(first % UInt64(Self.width)), count = 1 << depth
        guard hashes.count >= offset + count else { return nil }
        return Self.root(of: hashes[offset..<(offset + count)])
    }

    /// The root of the perfect subtree whose nodes of one level are `hashes` (a power of two
    /// of them): SHA-256(0x01 ‖ left ‖ right), pairwise, up to one.
    public static func root(of hashes: ArraySlice<[UInt8]>) -> [UInt8] {
        var level = Array(hashes)
        while level.count > 1 {
            var next: [[UInt8]] = []
            next.reserveCapacity(level.count / 2)
            var index = 0
            while index + 1 < level.count {
                next.append(MerkleHash.node(level[index], level[index + 1]))
                index += 2
            }
            if index < level.count { next.append(level[index]) }
            level = next
        }
        return level.first ?? MerkleHash.empty
    }

    /// The keys of the tiles a tree of `size` leaves may still change (the last tile of each
    /// tile level, when it is partial), lowest level first.
    public static func openTileKeys(size: UInt64) -> [MerkleNodeKey] {
        var keys: [MerkleNodeKey] = []
        var level = 0
        while level < 64, size >> UInt64(level) > 0 {
            let count = size >> UInt64(level)
            if count % UInt64(width) != 0 { keys.append(MerkleNodeKey(level: level, index: count / UInt64(width))) }
            level += height
        }
        return keys
    }
}
