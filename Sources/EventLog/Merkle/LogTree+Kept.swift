import Foundation

// The log's tree from the store's kept tree (``MerkleTreeStore``) when it covers what is asked,
// in O(log n) reads; otherwise by streaming the log (``LogTree/feed(_:from:toEnd:batchSize:)``).

extension LogTree {
    /// How many leaves one call of ``MerkleTreeStore/extendMerkleTree(limit:)`` adds at most.
    public static let extensionBatch = 10_000

    /// Extends the store's kept tree to the head (the follower of the kept tree: `seal`, `prove`,
    /// `verify`, `project --follow` and `evtool serve` call it). A connection that may not write
    /// the tree (a read-only file, the auditor role) leaves it as it is.
    /// - Returns: what the kept tree covers now; nil when the store keeps no tree.
    @discardableResult
    public static func extendKept(_ store: any EventStore) throws -> MerkleTreeState? {
        guard let kept = store as? any MerkleTreeStore else { return nil }
        do {
            while true {
                let (state, added) = try kept.extendMerkleTree(limit: extensionBatch)
                if added < extensionBatch { return state }
            }
        } catch EventStoreError.permissionDenied {
            return try kept.merkleTreeState()
        }
    }

    /// The number of events in the log (the tree's size today): the kept tree's size plus the
    /// events after it. Cost: O(log n) plus the events the kept tree does not cover yet.
    public static func size(of store: any EventStore) throws -> UInt64 {
        guard let state = try extendKept(store) else { return try streamedSize(of: store) }
        var cursor = state.position
        var count = state.size
        while true {
            let batch = try store.readAll(after: cursor, limit: 1_000)
            count += UInt64(batch.count)
            guard let last = batch.last, batch.count == 1_000 else { return count }
            cursor = last.position
        }
    }

    /// The root of the tree of the first `size` events.
    /// - Throws: ``MerkleProofError/missingLeaves(expected:got:)`` when the log has fewer.
    public static func root(of store: any EventStore, size: UInt64) throws -> [UInt8] {
        try proof(of: store, size: size, ranges: []).root
    }

    /// The root of the tree of the first `size` events and the roots of the subtrees of
    /// `ranges` (an inclusion or consistency proof's), from the kept tree when it covers
    /// `size` (O(log n) reads), else in one pass over the log.
    /// - Throws: ``MerkleProofError/missingLeaves(expected:got:)`` when the log has fewer events.
    public static func proof(of store: any EventStore, size: UInt64, ranges: [Range<UInt64>]) throws -> (root: [UInt8], proof: [[UInt8]]) {
        if let kept = store as? any MerkleTreeStore, let state = try extendKept(store), size <= state.size {
            guard size > 0 else { return (MerkleHash.empty, []) }
            let whole: Range<UInt64> = 0..<size
            var keys = Set(MerkleNodeKey.parts(of: whole))
            for range in ranges { keys.formUnion(MerkleNodeKey.parts(of: range)) }
            let hashes = try kept.merkleNodes(keys)
            return (try MerkleNodeKey.root(of: whole, hashes: hashes), try ranges.map { try MerkleNodeKey.root(of: $0, hashes: hashes) })
        }
        var builders = [MerkleProofBuilder(size: size, ranges: ranges)]
        try feed(&builders, from: store)
        return try builders[0].finish()
    }

    /// The inclusion proof of leaf `index` (whose leaf hash is `leafHash`) in the tree of the
    /// first `size` events, checked before it is returned (a kept tree that was tampered with
    /// gives a proof that does not hold: refused, never handed out).
    /// - Throws: ``MerkleProofError`` when it cannot be made or does not hold.
    public static func inclusionProof(of store: any EventStore, index: UInt64, size: UInt64, leafHash: [UInt8]) throws -> (root: [UInt8], proof: [[UInt8]]) {
        let built = try proof(of: store, size: size, ranges: try MerkleProof.inclusionRanges(index: index, size: size))
        do {
            try MerkleProof.verifyInclusion(leafHash: leafHash, index: index, size: size, path: built.proof, root: built.root)
        } catch {
            throw MerkleProofError.mismatch("the store's Merkle tree gives an inclusion proof for leaf \(index) that does not hold (\(error)): its kept tree was tampered with (run 'evtool verify')")
        }
        return built
    }

    /// The consistency proof from the tree of the first `from` events to that of the first
    /// `to`, with both roots, checked before it is returned.
    /// - Throws: ``MerkleProofError`` when it cannot be made or does not hold.
    public static func consistencyProof(of store: any EventStore, from: UInt64, to: UInt64) throws -> (fromRoot: [UInt8], root: [UInt8], proof: [[UInt8]]) {
        let fromRoot = try root(of: store, size: from)
        let built = try proof(of: store, size: to, ranges: try MerkleProof.consistencyRanges(from: from, to: to))
        do {
            try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: fromRoot, toRoot: built.root, path: built.proof)
        } catch {
            throw MerkleProofError.mismatch("the store's Merkle tree gives a consistency proof from \(from) to \(to) that does not hold (\(error)): its kept tree was tampered with (run 'evtool verify')")
        }
        return (fromRoot, built.root, built.proof)
    }

    /// The leaf index of the event with `id` and the event, or nil when the log has no such event:
    /// from the kept tree when it covers the event (O(log n)), else by streaming the log.
    public static func leaf(of id: UUID, in store: any EventStore) throws -> (index: UInt64, event: RecordedEvent)? {
        guard let kept = store as? any MerkleTreeStore, let byID = store as? any MultiStreamAppending, try extendKept(store) != nil else {
            return try streamedLeaf(of: id, in: store)
        }
        guard let event = try byID.events(withIDs: [id]).first else { return nil }
        if let index = try kept.merkleLeafIndex(position: event.position) {
            // The store finds the tile by its positions and counts the events before this one
            // in it; after an archive that split the tile, the archived ones are not there to be
            // counted. The tile's own leaf hashes say where the event is.
            let width = UInt64(MerkleTile.width)
            guard let tile = try kept.merkleTiles(level: 0, from: index / width, limit: 1).first, tile.index == index / width else {
                return (index, event)
            }
            let leaf = try leafHash(of: event)
            if let offset = tile.hashes.firstIndex(of: leaf) { return (tile.index * width + UInt64(offset), event) }
            return (index, event)
        }
        return try streamedLeaf(of: id, in: store)
    }
}
