/// `verify`'s check of a kept Merkle tree (``MerkleTreeStore``, kept as ``MerkleTile``s): the
/// tree is derived data, so every kept hash is recomputed and compared. Leaf i must be the
/// i-th event in position order (SHA-256(0x00 ‖ its chain hash), each level-0 tile's first and
/// last positions those of its events); each node kept at level 4, 8 … must be the root of the
/// 16 kept hashes of the tile below it; each level must hold exactly the nodes a tree of its
/// size has. Reads the tiles level by level in batches (bounded memory): O(n) reads and about
/// two SHA-256 digests per leaf.
public enum KeptTreeCheck {
    /// What `verify` and `seal` run after the log verified: extends the kept tree to the head
    /// (when this connection may write it) and checks all of it.
    /// - Returns: the kept tree's size, or nil when the store keeps no tree.
    /// - Throws: ``KeptTreeFailure`` naming the first subtree that is not the log's.
    @discardableResult
    public static func extendAndVerify(_ store: any EventStore) throws -> UInt64? {
        guard let kept = store as? any MerkleTreeStore else { return nil }
        try LogTree.extendKept(store)
        // After an archive the first leaves' events are in the archive files: the leaves stay
        // (proofs of kept events stay valid) and are checked against the files by the archive.
        let archived = try (store as? any ArchivingStore)?.latestArchive().map { (leaves: UInt64($0.events), position: $0.position - 1) }
        return try verify(kept, archived: archived)
    }

    /// Checks the kept tree against the store's chain hashes.
    /// - Returns: the number of leaves checked (the kept tree's size).
    /// - Throws: ``KeptTreeFailure`` naming the first subtree that is not the log's.
    /// - Parameter archived: after an archive, the leaves whose events were archived (the
    ///   first `leaves`, up to `position`): the tiles above them are checked, not their events.
    public static func verify(_ store: any MerkleTreeStore, batchSize: Int = 10_000,
                              archived: (leaves: UInt64, position: Int64)? = nil) throws -> UInt64 {
        let size = try store.merkleTreeState().size
        // A level with more nodes than the tree has (a missing one is found by the walks below).
        for (level, count) in try store.merkleLevelCounts().sorted(by: { $0.key < $1.key }) {
            let expected = level < 64 ? size >> UInt64(level) : 0
            guard count > expected else { continue }
            throw KeptTreeFailure(key: MerkleNodeKey(level: level, index: expected),
                                  reason: "is beyond the tree of \(size) leaves (its level has \(count) subtrees, not \(expected)): rows were added")
        }
        try verifyLeaves(store, size: size, batchSize: batchSize, archived: archived)
        var level = MerkleTile.height
        while level < 64, size >> UInt64(level) > 0 {
            try verifyLevel(store, level: level, size: size, batchSize: batchSize)
            level += MerkleTile.height
        }
        return size
    }

    /// The level-0 tiles against the events' chain hashes, in position order.
    private static func verifyLeaves(_ store: any MerkleTreeStore, size: UInt64, batchSize: Int,
                                     archived: (leaves: UInt64, position: Int64)?) throws {
        let width = UInt64(MerkleTile.width)
        let tileCount = (size + width - 1) / width
        let start = min(archived?.leaves ?? 0, size)   // the first leaf whose event is kept
        var cursor: Int64 = archived?.position ?? 0
        var pending: [(position: Int64, hash: String)] = []
        var used = 0
        var next: UInt64 = start / width
        // Reads events until `count` are pending (fewer at the end of the log).
        func fill(_ count: Int) throws {
            if used > batchSize {
                pending.removeFirst(used)
                used = 0
            }
            while pending.count - used < count {
                let more = try store.chainHashes(after: cursor, limit: batchSize)
                guard let last = more.last else { return }
                pending += more
                cursor = last.position
            }
        }
        while next < tileCount {
            let tiles = try store.merkleTiles(level: 0, from: next, limit: max(1, batchSize / MerkleTile.width))
            guard !tiles.isEmpty else { throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: next * width), reason: "is missing") }
            for tile in tiles where next < tileCount {
                let first = next * width
                guard tile.index == next else { throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: first), reason: "is missing") }
                let expected = Int(min(width, size - first))
                guard tile.hashes.count == expected else {
                    throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: first + UInt64(min(tile.hashes.count, expected))), reason: "is missing")
                }
                // Leaves of archived events at this tile's start are not checked against events.
                let skip = Int(start > first ? start - first : 0)
                let needed = expected - skip
                guard needed > 0 else {
                    next += 1
                    continue
                }
                try fill(needed + MerkleTile.width)
                guard pending.count - used >= needed else {
                    throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: first + UInt64(skip + pending.count - used)),
                                          reason: "has no event: the log has fewer events than the kept tree (it was truncated or events were removed)")
                }
                let events = pending[used..<(used + needed)]
                var ends = [(expected - 1, tile.lastPosition, events[used + needed - 1])]
                if skip == 0 { ends.insert((0, tile.firstPosition, events[used]), at: 0) }
                for (offset, kept, event) in ends where kept != event.position {
                    let index = first + UInt64(offset)
                    throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: index),
                                          reason: "is for position \(kept.map(String.init) ?? "none"), but the \(ordinal(index)) event is at position \(event.position): events were removed, inserted or reordered")
                }
                for (index, event) in events.enumerated() {
                    let offset = skip + index
                    let key = MerkleNodeKey(level: 0, index: first + UInt64(offset))
                    let leaf = tile.hashes[offset]
                    guard let entry = [UInt8](hexadecimal: event.hash), entry.count == MerkleHash.size, MerkleHash.leaf(entry) == leaf else {
                        // The leaf of another event nearby: the two were swapped.
                        if let other = pending[used...].first(where: { [UInt8](hexadecimal: $0.hash).map(MerkleHash.leaf) == leaf }) {
                            throw KeptTreeFailure(key: key, reason: "(position \(event.position)) is the leaf of the event now at position \(other.position): events were reordered")
                        }
                        throw KeptTreeFailure(key: key, reason: "(position \(event.position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")
                    }
                }
                used += needed
                next += 1
            }
        }
    }

    /// The nodes kept at `level` (4, 8 …) against the roots of the tiles below them.
    private static func verifyLevel(_ store: any MerkleTreeStore, level: Int, size: UInt64, batchSize: Int) throws {
        let width = UInt64(MerkleTile.width)
        let nodes = size >> UInt64(level)
        let tileCount = (nodes + width - 1) / width
        let below = level - MerkleTile.height
        let step = max(1, batchSize / (MerkleTile.width * MerkleTile.width))
        var next: UInt64 = 0
        while next < tileCount {
            let tiles = try store.merkleTiles(level: level, from: next, limit: step)
            guard !tiles.isEmpty else { throw KeptTreeFailure(key: MerkleNodeKey(level: level, index: next * width), reason: "is missing") }
            var children: [UInt64: MerkleTile] = [:]
            for child in try store.merkleTiles(level: below, from: next * width, limit: tiles.count * MerkleTile.width) { children[child.index] = child }
            for tile in tiles where next < tileCount {
                let first = next * width
                guard tile.index == next else { throw KeptTreeFailure(key: MerkleNodeKey(level: level, index: first), reason: "is missing") }
                let expected = Int(min(width, nodes - first))
                guard tile.hashes.count == expected else {
                    throw KeptTreeFailure(key: MerkleNodeKey(level: level, index: first + UInt64(min(tile.hashes.count, expected))), reason: "is missing")
                }
                for (offset, hash) in tile.hashes.enumerated() {
                    let key = tile.nodeKey(offset)
                    guard let child = children[key.index], child.hashes.count == MerkleTile.width else {
                        throw KeptTreeFailure(key: MerkleNodeKey(level: below, index: key.index * width), reason: "or a subtree beside it is missing")
                    }
                    guard MerkleTile.root(of: child.hashes[...]) == hash else {
                        throw KeptTreeFailure(key: key, reason: "is not the hash of its children (the 16 kept subtrees of level \(below) below it): it was rewritten")
                    }
                }
                next += 1
            }
        }
    }

    private static func ordinal(_ index: UInt64) -> String {
        let n = index + 1
        let suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][Int(n % 10)]
        return "\(n)\(suffix)"
    }
}
