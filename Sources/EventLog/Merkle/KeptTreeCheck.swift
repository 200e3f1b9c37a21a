/// `verify`'s check of a kept Merkle tree (``MerkleTreeStore``): the tree is derived data, so
/// every kept subtree is recomputed and compared. Leaf i must be the i-th event in position
/// order (its position and SHA-256(0x00 ‖ chain hash)); each node above must be the hash of
/// its two children; each level must hold exactly the subtrees a tree of its size has.
/// Reads the kept rows level by level in batches (bounded memory): O(n) reads and one SHA-256
/// per kept row.
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
    ///   first `leaves`, up to `position`): their subtrees above are checked, not their events.
    public static func verify(_ store: any MerkleTreeStore, batchSize: Int = 10_000,
                              archived: (leaves: UInt64, position: Int64)? = nil) throws -> UInt64 {
        let state = try store.merkleTreeState()
        let size = state.size
        let counts = try store.merkleLevelCounts()
        let top = size == 0 ? 0 : 64 - size.leadingZeroBitCount
        // A level with more subtrees than the tree has (a missing one is found by the walk below).
        for (level, count) in counts.sorted(by: { $0.key < $1.key }) {
            let expected = level < top ? size >> UInt64(level) : 0
            guard count > expected else { continue }
            let surplus = try store.merkleLevel(level, from: expected, limit: 1).first?.key ?? MerkleNodeKey(level: level, index: expected)
            throw KeptTreeFailure(key: surplus, reason: "is beyond the tree of \(size) leaves (its level has \(count) subtrees, not \(expected)): rows were added")
        }
        // Leaves against the events' chain hashes, in position order.
        var cursor: Int64 = archived?.position ?? 0
        var index: UInt64 = min(archived?.leaves ?? 0, size)
        while index < size {
            let events = try store.chainHashes(after: cursor, limit: batchSize)
            let leaves = try store.merkleLevel(0, from: index, limit: batchSize)
            for (event, leaf) in zip(events, leaves) where index < size {
                let key = MerkleNodeKey(level: 0, index: index)
                guard leaf.key == key else { throw KeptTreeFailure(key: key, reason: "is missing") }
                guard leaf.position == event.position else {
                    throw KeptTreeFailure(key: key, reason: "is for position \(leaf.position.map(String.init) ?? "none"), but the \(ordinal(index)) event is at position \(event.position): events were removed, inserted or reordered")
                }
                guard let entry = [UInt8](hexadecimal: event.hash), entry.count == MerkleHash.size, MerkleHash.leaf(entry) == leaf.hash else {
                    // The leaf of another event nearby: the two were swapped.
                    if let other = events.first(where: { [UInt8](hexadecimal: $0.hash).map(MerkleHash.leaf) == leaf.hash }) {
                        throw KeptTreeFailure(key: key, reason: "(position \(event.position)) is the leaf of the event now at position \(other.position): events were reordered")
                    }
                    throw KeptTreeFailure(key: key, reason: "(position \(event.position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")
                }
                index += 1
            }
            guard let last = events.last, !leaves.isEmpty, index < size else {
                if index < size { throw KeptTreeFailure(key: MerkleNodeKey(level: 0, index: index), reason: events.isEmpty ? "has no event: the log has fewer events than the kept tree (it was truncated or events were removed)" : "is missing") }
                break
            }
            cursor = last.position
        }
        // Each level above from the one below.
        var level = 1
        while level < top {
            let expected = size >> UInt64(level)
            var next: UInt64 = 0
            while next < expected {
                let count = min(UInt64(batchSize), expected - next)
                let children = try store.merkleLevel(level - 1, from: next * 2, limit: Int(count * 2))
                let nodes = try store.merkleLevel(level, from: next, limit: Int(count))
                for offset in 0..<count {
                    let key = MerkleNodeKey(level: level, index: next + offset)
                    let left = Int(offset * 2)
                    guard Int(offset) < nodes.count, nodes[Int(offset)].key == key else { throw KeptTreeFailure(key: key, reason: "is missing") }
                    guard left + 1 < children.count, children[left].key.index == key.index * 2, children[left + 1].key.index == key.index * 2 + 1 else {
                        throw KeptTreeFailure(key: MerkleNodeKey(level: level - 1, index: key.index * 2), reason: "or its sibling is missing")
                    }
                    guard MerkleHash.node(children[left].hash, children[left + 1].hash) == nodes[Int(offset)].hash else {
                        throw KeptTreeFailure(key: key, reason: "is not the hash of its two children: it was rewritten")
                    }
                }
                next += count
            }
            level += 1
        }
        return size
    }

    private static func ordinal(_ index: UInt64) -> String {
        let n = index + 1
        let suffix = (n % 100 >= 11 && n % 100 <= 13) ? "th" : ["th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"][Int(n % 10)]
        return "\(n)\(suffix)"
    }
}
