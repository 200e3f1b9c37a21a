import EventLog
import Foundation
import Projections
import StoreLocations

extension Migration {
    /// A step of a migration besides the copy's progress, for the face to tell its user.
    public enum Stage: Sendable, Equatable {
        /// The target already holds a copy of the source up to this source position: the copy
        /// carries on after it.
        case resuming(after: Int64)
        /// The copy is complete; both logs are being read in order and compared.
        case verifying
        /// The logs are the same; the target's views are being rebuilt.
        case rebuildingViews
    }

    /// What a migration did.
    public struct Outcome: Sendable, Equatable {
        /// The source's events: count and digest (the target has the same).
        public var digest: LogDigest
        /// Events this run copied (the rest were there from an interrupted run).
        public var copied: Int
        /// The source's seals and recorded checkpoints the target holds, and what stayed behind
        /// (``carryAuditTrail(from:to:)``).
        public var auditTrail = AuditTrail(seals: 0, checkpoints: 0)
    }

    /// Copies the whole log of `source` into `target` (resumably: the target always holds a
    /// copy of a prefix of the source), checks that both logs hold the same events in the same
    /// order, carries the source's seals and recorded checkpoints where they hold on the copy
    /// (``carryAuditTrail(from:to:)``), and rebuilds the target's views.
    /// - Parameters:
    ///   - batchSize: events per transaction.
    ///   - stage: told when the copy resumes, when verifying starts and when the views are rebuilt.
    ///   - progress: the copy's progress in source positions.
    ///   - shouldStop: checked after each committed batch; when true the copy stops there.
    ///   - sourceName: the source as `evtool verify` names it to complete the copy (``name(of:)``),
    ///     recorded in a target that keeps copies' records (``EventLog/CopyRecording``) before the
    ///     first batch that copies an erased event, and removed once the logs compare equal.
    /// - Throws: ``MigrationError`` when the target is not a copy of the source or the logs
    ///   differ; ``OperationError/interrupted(_:)`` when stopped, ``OperationError/invalid(_:)``
    ///   or ``OperationError/store(_:_:)`` for an event the target refused (naming its source
    ///   position), ``OperationError/unsupported(_:)`` for a target that cannot hold views.
    public static func run(from source: any EventStore, to target: any MultiStreamAppending, batchSize: Int = EventCopier.defaultBatchSize,
                           stage: (Stage) throws -> Void = { _ in }, progress: ProgressHandler = { _ in },
                           shouldStop: () -> Bool = { false }, sourceName: String = "the source") throws -> Outcome {
        var copier = EventCopier(store: target, batchSize: batchSize, unit: "source position", verb: "copied")
        let head = try source.headPosition()
        var cursor = try resumePosition(source: source, target: target)
        if cursor > 0 { try stage(.resuming(after: cursor)) }
        let records = target as? any CopyRecording
        var recorded = false
        try progress(.started(label: "migrate", total: head, unit: "events"))
        do {
            while true {
                let batch = try source.readAll(after: cursor, limit: copier.batchSize)
                guard let last = batch.last else { break }
                let kept = try erasedDigests(of: batch, in: source)
                if !kept.isEmpty, !recorded, let records {
                    // Before the batch commits: a target cut short after it holds tombstones whose
                    // UserErased events are still to come, and verify names it an incomplete copy.
                    do { try records.recordUnfinishedCopy(from: sourceName) } catch EventStoreError.permissionDenied {
                        // A role that may not record it may not copy erasures either: the batch says so.
                    }
                    recorded = true
                }
                for event in batch {
                    var copy = ProposedEvent(id: event.id, type: event.type, data: event.data, metadata: event.metadata, recordedAt: event.recordedAt)
                    // An erased event goes with the digests the source kept: the target chains
                    // it as the source did, so the hashes, the tree, checkpoints and proofs are
                    // the source's, and the target keeps the erasure's record.
                    copy.erasure = kept[event.position].map(CopiedErasure.init)
                    try copier.add(LogRecord.Imported(stream: event.streamID, version: event.version, event: copy, hash: event.hash),
                                   source: Int(event.position))
                }
                try copier.flush(through: Int(last.position))
                cursor = last.position
                try progress(.advanced(cursor))
                if shouldStop() {
                    try progress(.finished)
                    throw OperationError.interrupted("interrupted after copying through source position \(cursor); run the same migrate again to resume")
                }
            }
        } catch let error as EventCopier.CopyError {
            try progress(.finished)
            let message = "source position \(error.source): \(error.reason)"
            if let storeError = error.underlying as? EventStoreError { throw OperationError.store(message, storeError) }
            throw OperationError.invalid(message)
        }
        try progress(.completed(head))
        try progress(.finished)
        try stage(.verifying)
        let digest = try verify(source: source, target: target)
        // The copy is complete (a rerun of one cut short may copy no erased event itself).
        if let records, recorded || (try? records.unfinishedCopy()) != nil { try records.finishCopy() }
        let auditTrail: AuditTrail
        do {
            auditTrail = try carryAuditTrail(from: source, to: target)
        } catch EventStoreError.permissionDenied(let detail) {
            // What the target holds of them when its role was refused (the seals, not the checkpoints).
            let seals = try (source as? any AuditableEventStore)?.seals().count ?? 0
            let checkpoints = try (source as? any CheckpointRecording)?.recordedCheckpoints().count ?? 0
            let carriedSeals = min(seals, (try? (target as? any AuditableEventStore)?.seals().count) ?? 0)
            let carriedCheckpoints = min(checkpoints, (try? (target as? any CheckpointRecording)?.recordedCheckpoints().count) ?? 0)
            auditTrail = AuditTrail(seals: carriedSeals, checkpoints: carriedCheckpoints, sealsLeft: seals - carriedSeals,
                                    checkpointsLeft: checkpoints - carriedCheckpoints,
                                    reason: "the target's role may not record seals or checkpoints (\(detail))")
        }
        try stage(.rebuildingViews)
        guard let viewsStore = target as? any EventStore & ProjectionStore else { throw OperationError.unsupported("the target cannot hold views") }
        try Projector(store: viewsStore).rebuild()
        return Outcome(digest: digest, copied: copier.appended, auditTrail: auditTrail)
    }

    /// The digests the source kept of the tombstones in `batch` (one query, only when the
    /// batch holds one), by position.
    static func erasedDigests(of batch: [RecordedEvent], in source: any EventStore) throws -> [Int64: ErasedDigests] {
        let erased = Dictionary(batch.filter(Erasure.isTombstone).map { ($0.position, $0.id) }) { first, _ in first }
        guard let low = erased.keys.min(), let high = erased.keys.max(), let audit = source as? any AuditableEventStore else { return [:] }
        return try audit.erasedDigests(in: low...high).filter { erased[$0.key] == $0.value.eventID }
    }

    /// Opens both stores and migrates (``run(from:to:batchSize:stage:progress:shouldStop:)``):
    /// the source must exist; the target is created when missing.
    public static func run(from source: StoreLocation, to target: StoreLocation, batchSize: Int = EventCopier.defaultBatchSize,
                           stage: (Stage) throws -> Void = { _ in }, progress: ProgressHandler = { _ in },
                           shouldStop: () -> Bool = { false }) throws -> Outcome {
        guard !source.isSameStore(as: target) else { throw OperationError.invalid("'\(source)' and '\(target)' are the same store") }
        let from = try source.open(create: false)
        let to = try target.openForCopying()
        return try run(from: from, to: to, batchSize: batchSize, stage: stage, progress: progress, shouldStop: shouldStop,
                       sourceName: name(of: source))
    }

    /// How a copy's target records its source, for the command that completes the copy: the
    /// location with passwords masked, an SQLite path made absolute.
    public static func name(of source: StoreLocation) -> String {
        if case .sqlite(let path) = source, !path.hasPrefix("/") {
            return StoreLocation.sqlite(path: FileManager.default.currentDirectoryPath + "/" + path).description
        }
        return source.description
    }
}
