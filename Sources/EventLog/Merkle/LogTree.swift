import Foundation

/// The Merkle tree of a store's log: leaf i is the i-th event's chain hash (``RecordedEvent/hash``,
/// 32 raw bytes), so an erased event, whose chain hash stays, keeps its leaf and every proof
/// stays valid. A store that keeps the tree (``MerkleTreeStore``) answers from it in O(log n)
/// reads (LogTree+Kept.swift); the streamed forms here read the log in position order: one
/// batch of events plus O(log n) hashes per builder, O(n) reads and about two SHA-256 digests
/// per event for each pass.
public enum LogTree {
    /// The leaf hash of an event: RFC 9162's leaf hash of its chain hash's 32 bytes.
    /// - Throws: ``MerkleProofError/malformed(_:)`` when the stored hash is not 64 hex digits.
    public static func leafHash(of event: RecordedEvent) throws(MerkleProofError) -> [UInt8] {
        guard let hash = [UInt8](hexadecimal: event.hash), hash.count == MerkleHash.size else {
            throw .malformed("the event at position \(event.position) has no valid chain hash")
        }
        return MerkleHash.leaf(hash)
    }

    /// Feeds every builder the log's leaves, in one pass over the events, until each has its
    /// size. A builder left incomplete means the log has fewer events than its size (see
    /// ``MerkleProofBuilder/finish()``).
    /// - Returns: the number of events read (all of them when `toEnd`, else enough for the builders).
    @discardableResult
    public static func feed(_ builders: inout [MerkleProofBuilder], from store: any EventStore, toEnd: Bool = false,
                            batchSize: Int = 1_000) throws -> UInt64 {
        var cursor: Int64 = 0
        var count: UInt64 = 0
        while toEnd || builders.contains(where: { !$0.isComplete }) {
            let batch = try store.readAll(after: cursor, limit: batchSize)
            for event in batch {
                let leaf = try leafHash(of: event)
                for index in builders.indices { builders[index].add(leafHash: leaf) }
                count += 1
            }
            guard let last = batch.last, batch.count == batchSize else { break }
            cursor = last.position
        }
        return count
    }

    /// The number of events in the log, counted in one pass.
    public static func streamedSize(of store: any EventStore) throws -> UInt64 {
        var none: [MerkleProofBuilder] = []
        return try feed(&none, from: store, toEnd: true)
    }

    /// The root of the tree of the first `size` events, in one pass over the log.
    /// - Throws: ``MerkleProofError/missingLeaves(expected:got:)`` when the log has fewer.
    public static func streamedRoot(of store: any EventStore, size: UInt64) throws -> [UInt8] {
        var builders = [MerkleProofBuilder(size: size)]
        try feed(&builders, from: store)
        return try builders[0].finish().root
    }

    /// The leaf index of the event with `id` and the event, or nil when the log has no such
    /// event, by streaming the log.
    public static func streamedLeaf(of id: UUID, in store: any EventStore, batchSize: Int = 1_000) throws -> (index: UInt64, event: RecordedEvent)? {
        var cursor: Int64 = 0
        var index: UInt64 = 0
        while true {
            let batch = try store.readAll(after: cursor, limit: batchSize)
            for event in batch {
                if event.id == id { return (index, event) }
                index += 1
            }
            guard let last = batch.last, batch.count == batchSize else { return nil }
            cursor = last.position
        }
    }
}
