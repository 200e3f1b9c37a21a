/// Extends a kept Merkle tree (its tiles, ``MerkleTile``) leaf by leaf and collects the tiles
/// to write: every tile a leaf completes and, at the end, the partial last tile of each level.
/// Starts from the tree's open tiles (``MerkleTile/openTileKeys(size:)``). About two SHA-256
/// digests per leaf (the leaf's, and 15 per 16 leaves for the level above), written into its
/// own flat buffers: no allocation per leaf (``add(entry:position:)``); memory O(log n) plus
/// the tiles completed (512 bytes each).
public struct MerkleTileGrowth: Sendable {
    /// The number of leaves so far.
    public private(set) var size: UInt64
    /// The hashes of the last, partial tile of each tier (tier t: level 4t), at
    /// `t * tileBytes`, one after another; `openCounts[t]` of them.
    private var open: [UInt8]
    private var openCounts: [Int]
    private var firstPosition: Int64?
    private var lastPosition: Int64?
    /// The hashes of the tiles completed, `tileBytes` each, in the order of `completed`.
    private var completedHashes: [UInt8] = []
    private var completed: [(tier: Int, index: UInt64, firstPosition: Int64?, lastPosition: Int64?)] = []
    /// Bit t: a hash was added to tier t (its open tile is written).
    private var touched: UInt64 = 0

    private static let tiers = 64 / MerkleTile.height
    private static let tileBytes = MerkleTile.width * MerkleHash.size

    /// Growth from a tree of `size` leaves whose open tiles are `tiles` (each tile of
    /// ``MerkleTile/openTileKeys(size:)``, by key; others are ignored).
    /// - Throws: ``MerkleProofError/malformed(_:)`` when one is missing or has the wrong count.
    public init(size: UInt64, tiles: [MerkleNodeKey: MerkleTile]) throws(MerkleProofError) {
        var kept: [MerkleNodeKey: KeptTile] = [:]
        for key in MerkleTile.openTileKeys(size: size) {
            guard let tile = tiles[key] else { continue }
            // A hash of another length is refused: one byte is never 32 for each hash.
            let whole = tile.hashes.allSatisfy { $0.count == MerkleHash.size }
            kept[key] = KeptTile(hashes: whole ? tile.hashes.flatMap { $0 } : [0], firstPosition: tile.firstPosition, lastPosition: tile.lastPosition)
        }
        try self.init(size: size, kept: kept)
    }

    /// An open tile as a store keeps it: its hashes in one run of bytes, 32 each (the store's
    /// value, read without splitting it), and at level 0 its first and last leaves' positions.
    public struct KeptTile: Sendable {
        /// The hashes, one after another.
        public var hashes: [UInt8]
        /// Level 0: the position of the first leaf's event.
        public var firstPosition: Int64?
        /// Level 0: the position of the last leaf's event.
        public var lastPosition: Int64?

        /// A tile of `hashes` (32 bytes each, one after another).
        public init(hashes: [UInt8], firstPosition: Int64?, lastPosition: Int64?) {
            self.hashes = hashes
            self.firstPosition = firstPosition
            self.lastPosition = lastPosition
        }
    }

    /// Growth from a tree of `size` leaves whose open tiles are `kept` (each tile of
    /// ``MerkleTile/openTileKeys(size:)``, by key; others are ignored), as the store holds them.
    /// - Throws: ``MerkleProofError/malformed(_:)`` when one is missing or its bytes are not
    ///   32 for each of the hashes the size gives it.
    public init(size: UInt64, kept: [MerkleNodeKey: KeptTile]) throws(MerkleProofError) {
        self.size = size
        open = [UInt8](repeating: 0, count: Self.tiers * Self.tileBytes)
        openCounts = [Int](repeating: 0, count: Self.tiers)
        for key in MerkleTile.openTileKeys(size: size) {
            let tier = key.level / MerkleTile.height
            let expected = Int((size >> UInt64(key.level)) % UInt64(MerkleTile.width))
            guard let tile = kept[key], tile.hashes.count == expected * MerkleHash.size else {
                throw .malformed("the kept tree of \(size) leaves lacks its partial tile (level \(key.level), index \(key.index)) of \(expected) hashes")
            }
            let base = tier * Self.tileBytes
            open.replaceSubrange(base..<(base + tile.hashes.count), with: tile.hashes)
            openCounts[tier] = expected
            if key.level == 0 {
                firstPosition = tile.firstPosition
                lastPosition = tile.lastPosition
            }
        }
    }

    /// Adds the next leaf, by the 32 bytes of its entry (the event's chain hash) at `entry`,
    /// for the event at `position`: its leaf hash is computed into the open tile (one digest).
    public mutating func add(entry: UnsafeRawPointer, position: Int64) {
        notePosition(position)
        let offset = openCounts[0] * MerkleHash.size
        open.withUnsafeMutableBytes { MerkleHash.leaf(entry: entry, into: $0.baseAddress! + offset) }
        settle()
    }

    /// Adds the next leaf, by its leaf hash (32 bytes), for the event at `position`.
    public mutating func add(leafHash: [UInt8], position: Int64) {
        notePosition(position)
        let offset = openCounts[0] * MerkleHash.size
        open.withUnsafeMutableBytes { buffer in
            let target = UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<(offset + MerkleHash.size)])
            target.initializeMemory(as: UInt8.self, repeating: 0)
            target.copyBytes(from: leafHash.prefix(MerkleHash.size))
        }
        settle()
    }

    private mutating func notePosition(_ position: Int64) {
        if openCounts[0] == 0 { firstPosition = position }
        lastPosition = position
    }

    /// Counts the leaf hash just written into tier 0's open tile; each tile it fills is
    /// completed and its root written into the open tile of the tier above.
    private mutating func settle() {
        var tier = 0
        var node = size
        size += 1
        while true {
            touched |= 1 << UInt64(tier)
            openCounts[tier] += 1
            guard openCounts[tier] == MerkleTile.width else { return }
            let base = tier * Self.tileBytes
            completed.append((tier, node / UInt64(MerkleTile.width), tier == 0 ? firstPosition : nil, tier == 0 ? lastPosition : nil))
            completedHashes.append(contentsOf: open[base..<(base + Self.tileBytes)])
            openCounts[tier] = 0
            guard tier + 1 < Self.tiers else { return }
            let target = (tier + 1) * Self.tileBytes + openCounts[tier + 1] * MerkleHash.size
            open.withUnsafeMutableBytes { buffer in
                MerkleHash.foldInPlace(buffer.baseAddress! + base, count: MerkleTile.width)
                (buffer.baseAddress! + target).copyMemory(from: buffer.baseAddress! + base, byteCount: MerkleHash.size)
            }
            tier += 1
            node /= UInt64(MerkleTile.width)
        }
    }

    /// Calls `body` with each tile to write for the leaves added, its hashes in place (valid
    /// only during the call): each completed one and each partial last one (a partial tile
    /// kept before that grew is written again whole). No allocation.
    public func forEachTile(_ body: (_ level: Int, _ index: UInt64, _ firstPosition: Int64?, _ lastPosition: Int64?,
                                     _ hashes: UnsafeRawBufferPointer) throws -> Void) rethrows {
        try completedHashes.withUnsafeBytes { bytes in
            for (number, tile) in completed.enumerated() {
                try body(tile.tier * MerkleTile.height, tile.index, tile.firstPosition, tile.lastPosition,
                         UnsafeRawBufferPointer(rebasing: bytes[(number * Self.tileBytes)..<((number + 1) * Self.tileBytes)]))
            }
        }
        try open.withUnsafeBytes { bytes in
            for tier in 0..<Self.tiers where openCounts[tier] > 0 && touched & (1 << UInt64(tier)) != 0 {
                let level = tier * MerkleTile.height
                let base = tier * Self.tileBytes
                try body(level, (size >> UInt64(level)) / UInt64(MerkleTile.width), tier == 0 ? firstPosition : nil, tier == 0 ? lastPosition : nil,
                         UnsafeRawBufferPointer(rebasing: bytes[base..<(base + openCounts[tier] * MerkleHash.size)]))
            }
        }
    }

    /// The tiles to write for the leaves added: each completed one and each partial last one
    /// (a partial tile kept before that grew is written again whole), as ``forEachTile(_:)``
    /// hands them out.
    public var tiles: [MerkleTile] {
        var all: [MerkleTile] = []
        forEachTile { level, index, first, last, bytes in
            let hashes = stride(from: 0, to: bytes.count, by: MerkleHash.size).map { [UInt8](bytes[$0..<($0 + MerkleHash.size)]) }
            all.append(MerkleTile(level: level, index: index, hashes: hashes, firstPosition: first, lastPosition: last))
        }
        return all
    }
}
