import EventLog
import Foundation
import Transfer

/// `verify --checkpoint`: the store's log against a checkpoint it cannot rewrite.
public enum CheckpointCheck {
    /// Reads the checkpoint and checks its signature (with a public key), before the log is read.
    /// - Returns: the checkpoint and the note on its signature.
    public static func prepare(_ path: String, publicKey: String?) throws -> (checkpoint: Checkpoint, signature: String) {
        let checkpoint = try AuditFiles.checkpoint(path)
        return (checkpoint, try AuditFiles.checkSignature(checkpoint, file: path, publicKey: publicKey))
    }

    /// Checks that the log's first N events have the checkpoint's root and that the tree of
    /// today extends it, by a consistency proof made from the log and checked like an auditor
    /// would. Made by streaming the log, not from the store's kept tree (verify checks that after).
    /// - Returns: the note for verify's OK line.
    /// - Throws: ``OperationError/invalid(_:)`` naming truncation, a rewrite below the checkpoint or a
    ///   fork, or a forged checkpoint.
    /// - Parameter archives: after `evtool archive`, every archive's file, oldest first: their
    ///   events are streamed before the store's (the files are checked by verify).
    public static func run(store: any EventStore, checkpoint: Checkpoint, path: String, signature: String, archives: [String] = []) throws -> String {
        let described = "checkpoint '\(path)' (\(checkpoint.size.counted("event")), \(signature))"
        var archived: Int64 = 0
        if let archiving = store as? any ArchivingStore, let latest = try archiving.latestArchive() {
            guard !archives.isEmpty else {
                throw OperationError.invalid("the log's first \(latest.events) events are archived: give every archive's file (--archive FILE…) to check \(described) against the log")
            }
            archived = latest.events   // the files hold exactly these (verify checks each file's count and SHA-256)
        }
        let size = UInt64(archived) + (try LogTree.streamedSize(of: store))
        guard size >= checkpoint.size else {
            throw OperationError.invalid("the log fails \(described): it has \(size.counted("event")), fewer than the checkpoint covers: it was truncated or events were removed")
        }
        guard checkpoint.size > 0 else { return "extends \(described)" }
        var builders = [MerkleProofBuilder(size: size, ranges: try MerkleProof.consistencyRanges(from: checkpoint.size, to: size))]
        var streamed: Int64 = 0
        for file in archives where archived > 0 {
            let reader = try ArchiveFile(path: file)
            while true {
                let batch = try reader.next()
                if batch.isEmpty { break }
                for event in batch { builders[0].add(leafHash: try LogTree.leafHash(of: event)) }
                streamed += Int64(batch.count)
            }
        }
        guard streamed == archived else {
            throw OperationError.invalid("the archive files hold \(streamed.counted("event")), and the store records \(archived) archived")
        }
        try LogTree.feed(&builders, from: store)
        let built = try builders[0].finish()
        do {
            try MerkleProof.verifyConsistency(from: checkpoint.size, to: size, fromRoot: checkpoint.root, toRoot: built.root, path: built.proof)
        } catch {
            throw OperationError.invalid("the log fails \(described): its first \(checkpoint.size) events are not the ones the checkpoint covers: an event there was modified, removed, inserted or reordered (with the chains and seals rewritten to match), or this store is a fork")
        }
        return "extends \(described) (consistency proof \(checkpoint.size) → \(size) checked)"
    }
}
