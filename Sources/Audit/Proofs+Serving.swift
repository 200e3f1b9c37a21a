import EventLog
import Foundation
import Transfer

// Proofs and checkpoints asked of an opened store by a long-running process (`evtool serve`'s
// `/v1/checkpoints/latest`, `/v1/proofs/inclusion`, `/v1/proofs/consistency`): the same
// documents `evtool prove --json` prints, made from the kept tree after extending it, never for
// a tree larger than the kept tree's recorded size.

extension Proofs {
    /// The newest checkpoint the store recorded (`seal --key`, `POST /v1/admin/seal`), with its
    /// text read, or nil when it recorded none (or records no checkpoints).
    /// - Throws: ``ProofRequestError`` (``ProofRequestError/Kind/damaged``) when the recorded text
    ///   is not a checkpoint of the size recorded beside it; the store's failures.
    public static func latestCheckpoint(in store: any EventStore) throws -> (recorded: RecordedCheckpoint, checkpoint: Checkpoint)? {
        guard let recording = store as? any CheckpointRecording, let recorded = try recording.latestRecordedCheckpoint() else { return nil }
        let checkpoint: Checkpoint
        do {
            checkpoint = try Checkpoint(text: recorded.note)
        } catch {
            throw ProofRequestError(.damaged, "the recorded checkpoint \(recorded.number) is not a checkpoint (\(error)): run 'evtool verify'")
        }
        guard checkpoint.size == recorded.size else {
            throw ProofRequestError(.damaged, "the recorded checkpoint \(recorded.number) states \(checkpoint.size.counted("event")), its record \(recorded.size): run 'evtool verify'")
        }
        return (recorded, checkpoint)
    }

    /// The largest tree a proof can be made in now: the kept tree's recorded size after
    /// extending it to the head (a connection that may not extend it: its size as it is); for a
    /// store that keeps no tree, the number of events in the log.
    public static func provableSize(of store: any EventStore) throws -> UInt64 {
        if let state = try LogTree.extendKept(store) { return state.size }
        return try LogTree.streamedSize(of: store)
    }

    /// The inclusion proof of event `id` in the tree of the first `size` events, as
    /// `evtool prove --event ID --json` prints it. Without `size`, in the tree of the newest
    /// recorded checkpoint (so the proof checks against that checkpoint: its root is compared
    /// before the proof is returned), or of the whole kept tree when none was recorded.
    /// The kept tree is extended first; `size` may not exceed its recorded size.
    /// - Parameter name: names the store in messages.
    /// - Throws: ``ProofRequestError``: ``ProofRequestError/Kind/notFound`` for an event the log
    ///   does not have (`event`), ``ProofRequestError/Kind/invalid`` for a size beyond the tree
    ///   (`size`) or an event after the size (`event`, or `size` when one was given),
    ///   ``ProofRequestError/Kind/damaged`` when the kept tree does not give a proof that holds.
    public static func inclusion(of id: UUID, in store: any EventStore, size requested: UInt64? = nil,
                                 name: String = "the store") throws -> ProofDocument {
        let idText = id.lowercaseString
        let treeSize = try provableSize(of: store)
        let latest = requested == nil ? try latestCheckpoint(in: store) : nil
        let size: UInt64
        if let requested {
            guard requested >= 1, requested <= treeSize else {
                throw ProofRequestError(.invalid, parameter: "size", Self.beyond(treeSize, "the size must be from 1 to \(treeSize), not \(requested)"))
            }
            size = requested
        } else if let latest {
            guard latest.checkpoint.size <= treeSize else {
                throw ProofRequestError(.damaged, "the newest recorded checkpoint (\(latest.recorded.number)) has \(latest.checkpoint.size.counted("event")), the kept tree only \(treeSize): run 'evtool verify'")
            }
            size = latest.checkpoint.size
        } else {
            size = treeSize
        }
        guard let (index, event) = try LogTree.leaf(of: id, in: store) else {
            throw ProofRequestError(.notFound, parameter: "event", "the log has no event \(idText)")
        }
        guard index < size else {
            if requested != nil {
                throw ProofRequestError(.invalid, parameter: "size", "event \(idText) is leaf \(index): it is not in the tree of the first \(size.counted("event")) (the size must be above \(index))")
            }
            let bound = latest.map { "the newest recorded checkpoint's (\($0.recorded.number)) \(size.counted("event"))" } ?? "the kept tree's \(size.counted("event"))"
            throw ProofRequestError(.invalid, parameter: "event", "event \(idText) is leaf \(index), after \(bound): seal again, or ask with a size from \(index + 1) to \(treeSize)")
        }
        let built: (document: ProofDocument, root: [UInt8])
        do {
            built = try inclusionDocument(of: event, index: index, size: size, in: store, name)
        } catch let error as OperationError {
            throw ProofRequestError(.damaged, "\(error): run 'evtool verify'")
        }
        if let latest, built.root != latest.checkpoint.root {
            throw ProofRequestError(.damaged, "the tree of the first \(size.counted("event")) does not have the root of the newest recorded checkpoint (\(latest.recorded.number)): the log or its kept tree was rewritten, or the record forged (run 'evtool verify')")
        }
        return built.document
    }

    /// The consistency proof that the tree of the first `from` events is a prefix of the tree of
    /// the first `to`, as `evtool prove --from OLD --to NEW --json` prints it for checkpoints of
    /// those sizes. The kept tree is extended first; `to` may not exceed its recorded size.
    /// - Parameter name: names the store in messages.
    /// - Throws: ``ProofRequestError``: ``ProofRequestError/Kind/invalid`` for `from` of 0 or after
    ///   `to` (`from`) or `to` beyond the tree (`to`), ``ProofRequestError/Kind/damaged`` when the
    ///   kept tree does not give a proof that holds.
    public static func consistency(in store: any EventStore, from: UInt64, to: UInt64, name: String = "the store") throws -> ProofDocument {
        guard from >= 1 else {
            throw ProofRequestError(.invalid, parameter: "from", "a consistency proof starts from a tree of at least 1 event, not 0")
        }
        guard from <= to else {
            throw ProofRequestError(.invalid, parameter: "from", "from (\(from)) is after to (\(to)): a consistency proof goes from the older, smaller tree to the newer")
        }
        let treeSize = try provableSize(of: store)
        guard to <= treeSize else {
            throw ProofRequestError(.invalid, parameter: "to", Self.beyond(treeSize, "to must be at most \(treeSize), not \(to)"))
        }
        do {
            let built = try finishing(name) { try LogTree.consistencyProof(of: store, from: from, to: to) }
            return .consistency(from: from, to: to, path: built.proof)
        } catch let error as OperationError {
            throw ProofRequestError(.damaged, "\(error): run 'evtool verify'")
        }
    }

    /// Why a size is beyond a tree of `treeSize` events.
    private static func beyond(_ treeSize: UInt64, _ rule: String) -> String {
        treeSize == 0 ? "the log has no events yet: there is no tree to prove in" : "the log's tree has \(treeSize.counted("event")): \(rule)"
    }
}
