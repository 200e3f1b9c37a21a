import Commands
import EventLog
import Foundation
import Projections
import StoreLocations
import StoreSQLite
import Transfer

/// The audit trail's operations (docs/explanation/audit.md): verify the log, seal it, forget a user.
/// Each is one call; the results are values the face words, the failures ``OperationError``s.
public enum LogAudit {
    /// A verified log.
    public struct Verification: Sendable {
        /// What was verified.
        public var report: VerificationReport
        /// With a checkpoint: what was proved against it (for the OK line), else nil.
        public var consistency: String?
    }

    /// Events of an erased user that an archive file still holds.
    public struct ArchivedEvents: Sendable, Hashable {
        /// The archive file, as given.
        public var file: String
        /// The archive's number.
        public var archive: Int64
        /// How many of the user's events it holds.
        public var events: Int64
    }

    /// Opens a store to verify, seal or prove, telling apart what is not a store and a newer schema.
    /// - Throws: ``OperationError/notAStore(_:)``, ``OperationError/newerSchema(_:)``; the
    ///   store's other errors as they are.
    public static func open(_ location: StoreLocation) throws -> any EventStore {
        do {
            return try location.open(create: false)
        } catch let error as EventStoreError {
            switch error {
            case .corrupt(let reason) where reason.contains("not an SQLite database") || reason.contains("not an evtool store"):
                throw OperationError.notAStore("\(location) is not an evtool store (\(reason)); nothing was verified")
            case .newerSchema:
                throw OperationError.newerSchema("\(Release.describe(error)); nothing was verified")
            default:
                throw error
            }
        }
    }

    /// Verifies one stream's chain (seals, which cover every stream, are not checked).
    /// - Throws: ``OperationError/nothingToDo(_:)`` for a stream with no events,
    ///   ``OperationError/invalid(_:)`` when it fails verification.
    public static func verifyStream(_ stream: String, in store: any EventStore, location: StoreLocation) throws -> VerificationReport {
        var verifier = try LogArchive.verifier(for: store)
        do {
            let report = try verifier.verifyStream(stream)
            guard report.events > 0 else {
                throw OperationError.nothingToDo("stream '\(stream)' has no events in \(location): nothing to verify (stream ids are compared byte for byte)")
            }
            return report
        } catch let failure as VerificationFailure {
            throw refusal(failure, store: store, location: location, "the log fails verification: ")
        }
    }

    /// What a verification failure is: an incomplete copy when the failure is a tombstone
    /// waiting for an erasure's record the log does not hold and the store records an
    /// unfinished copy (``EventLog/CopyRecording``), naming the `migrate` that completes it;
    /// otherwise the failure, after `prefix`.
    static func refusal(_ failure: VerificationFailure, store: any EventStore, location: some CustomStringConvertible, _ prefix: String) -> OperationError {
        guard let awaited = failure.awaitedErasure, let records = store as? any CopyRecording,
              let source = try? records.unfinishedCopy() else {
            return OperationError.invalid(prefix + "\(failure)")
        }
        let waiting = awaited.tombstones == 1 ? "the tombstone at position \(failure.position)" : "\(awaited.tombstones) tombstones, the first at position \(failure.position)"
        return OperationError.incompleteCopy(
            "this store is an incomplete copy: a migrate from \(source) stopped before it copied the UserErased event \(awaited.erasureEventID.lowercaseString) covering \(waiting)\(failure.stream.map { " (stream '\($0)')" } ?? ""); nothing else fails verification; complete it with 'evtool migrate --from \(source) --to \(location)', then verify again")
    }

    /// Verifies the whole log, in position order and bounded memory: every event's hash, every
    /// stream's versions, every seal; with a checkpoint (read by ``CheckpointCheck/prepare(_:publicKey:)``),
    /// also that the log extends it.
    /// - Parameter progress: positions verified, after each batch.
    /// - Throws: ``OperationError/nothingToDo(_:)`` for a store with no events and no seals,
    ///   ``OperationError/invalid(_:)`` naming the first problem.
    /// - Parameter archives: after `evtool archive`, the archive files (every archive's, oldest
    ///   first): verified with the rest of the log, each against the store's record of it.
    ///   Without them the log is verified from the latest archive boundary.
    public static func verify(_ store: any EventStore, location: StoreLocation,
                              checkpoint: (checkpoint: Checkpoint, path: String, signature: String)? = nil,
                              archives: [String] = [],
                              progress: ProgressHandler = { _ in }) throws -> Verification {
        try verify(store, named: location.description, checkpoint: checkpoint, archives: archives, progress: progress)
    }

    /// ``verify(_:location:checkpoint:archives:progress:)`` of a store its messages call `name`
    /// (a path or URL without its password; the audit overview's verdict, where a server holds
    /// no ``StoreLocation``).
    public static func verify(_ store: any EventStore, named location: String,
                              checkpoint: (checkpoint: Checkpoint, path: String, signature: String)? = nil,
                              archives: [String] = [],
                              progress: ProgressHandler = { _ in }) throws -> Verification {
        var verifier = archives.isEmpty ? try LogArchive.verifier(for: store) : try LogArchive.verifier(for: store, files: archives)
        do {
            let seals = try (store as? any AuditableEventStore)?.seals() ?? []
            guard try store.headPosition() > 0 || !seals.isEmpty else {
                throw OperationError.nothingToDo("\(location) holds no events and no seals: nothing to verify (is this the right store?)")
            }
            let report = try verifyLog(&verifier, head: try store.headPosition(), progress: progress)
            if let damage = try storageDamage(store) { throw OperationError.invalid("the log fails verification: " + damage) }
            // The checkpoint kept outside first (it trusts nothing the store derived), then the
            // store's kept tree and recorded checkpoints.
            let consistency = try checkpoint.map { try CheckpointCheck.run(store: store, checkpoint: $0.checkpoint, path: $0.path, signature: $0.signature, archives: archives) }
            try checkKeptTree(store)
            try checkRecordedCheckpoints(store, logSize: UInt64(report.events))
            guard let checkpoint, let consistency else { return Verification(report: report, consistency: nil) }
            let recorded: Int64?
            do {
                recorded = try RecordedCheckpointCheck.match(store, external: checkpoint.checkpoint)
            } catch let failure as RecordedCheckpointFailure {
                throw OperationError.invalid("the log fails checkpoint '\(checkpoint.path)': \(failure)")
            }
            return Verification(report: report, consistency: consistency + (recorded.map { "; recorded in the store as checkpoint \($0)" } ?? ""))
        } catch let failure as VerificationFailure {
            let refused = refusal(failure, store: store, location: location, "the log fails verification: ")
            // What the file's own check finds too: a damaged file explains the walk's failure.
            if case let .invalid(message) = refused, let damage = try? storageDamage(store) {
                throw OperationError.invalid(message + "; " + damage)
            }
            throw refused
        }
    }

    /// What the store's storage engine finds wrong with how it keeps the log
    /// (``StorageChecking``: SQLite's `PRAGMA quick_check`), as words for `verify`'s failure;
    /// nil when it finds nothing or the store has no such check.
    static func storageDamage(_ store: any EventStore) throws -> String? {
        guard let checking = store as? any StorageChecking else { return nil }
        let problems = try checking.storageProblems(limit: 10)
        guard !problems.isEmpty else { return nil }
        return "the store's file is damaged (\(checking.storageCheckName): \(problems.joined(separator: "; ")))"
    }

    /// The line `evtool verify` prints for a verified log (the audit overview shows the same):
    /// `OK: 1,902 events in 50 streams, 1 seal verified`, and the erased events accepted. It
    /// counts the events checked: after `evtool archive`, verified without the archive files,
    /// `OK: 372 events from position 100 in 10 streams, 0 seals verified; 99 archived events
    /// (positions 1–99) not checked: give --archive FILE (every archive's, oldest first) to check them`.
    public static func summary(_ report: VerificationReport) -> String {
        let erased = report.erasedEvents > 0 ? " (\(report.erasedEvents) erased, accepted by their kept digests)" : ""
        let from = report.uncheckedArchivedEvents > 0 ? " from position \(report.firstCheckedPosition)" : ""
        let line = "OK: \(report.checkedEvents.counted("event"))\(from) in \(report.streams.counted("stream")), \(report.seals.counted("seal")) verified\(erased)"
        guard report.uncheckedArchivedEvents > 0 else { return line }
        return line + "; \(report.uncheckedArchivedEvents.counted("archived event")) (positions 1–\(report.firstCheckedPosition - 1)) not checked:"
            + " give --archive FILE (every archive's, oldest first) to check them"
    }

    /// Checks every checkpoint the store recorded against the log.
    /// - Throws: ``OperationError/invalid(_:)`` naming the first that does not hold.
    public static func checkRecordedCheckpoints(_ store: any EventStore, logSize: UInt64) throws {
        do {
            try RecordedCheckpointCheck.verify(store, logSize: logSize)
        } catch let failure as RecordedCheckpointFailure {
            throw OperationError.invalid("the log fails verification: \(failure)")
        }
    }

    /// Extends the store's kept Merkle tree and checks it against the log (verify, seal).
    /// - Throws: ``OperationError/invalid(_:)`` naming the first kept subtree that is not the log's.
    public static func checkKeptTree(_ store: any EventStore) throws {
        do {
            try KeptTreeCheck.extendAndVerify(store)
        } catch let failure as KeptTreeFailure {
            throw OperationError.invalid("the log fails verification: \(failure)")
        }
    }

    /// The checkpoints the store recorded (each `seal` with a key records one), oldest first.
    /// - Throws: ``OperationError/unsupported(_:)`` for a store that records none.
    public static func recordedCheckpoints(_ store: any EventStore, location: StoreLocation) throws -> [RecordedCheckpoint] {
        guard let store = store as? any CheckpointRecording else {
            throw OperationError.unsupported("the store \(location) records no checkpoints")
        }
        return try store.recordedCheckpoints()
    }

    /// Verifies the whole log, then records a seal over every stream's head as of the verified
    /// head; with `key` (a private key) or `makeCheckpoint`, also makes the checkpoint of the
    /// sealed events' Merkle tree (signed with the key).
    /// - Throws: ``OperationError/unsupported(_:)`` for a store that keeps no seals,
    ///   ``OperationError/nothingToDo(_:)`` for one with no events, ``OperationError/invalid(_:)``
    ///   when the log fails verification (then nothing is sealed) or the key is a public one.
    public static func seal(_ store: any EventStore, location: StoreLocation, key: Ed25519Key? = nil, makeCheckpoint: Bool = false,
                            progress: ProgressHandler = { _ in }) throws -> SealResult {
        guard let store = store as? any AuditableEventStore else {
            throw OperationError.unsupported("the store \(location) cannot keep seals")
        }
        if let key, key.privateKey == nil { throw OperationError.invalid("a checkpoint is signed with a private key, not a public one") }
        guard try store.headPosition() > 0 else {
            throw OperationError.nothingToDo("\(location) holds no events: nothing to seal")
        }
        var verifier = try LogArchive.verifier(for: store)
        let report: VerificationReport
        do {
            report = try verifyLog(&verifier, head: try store.headPosition(), progress: progress)
            try KeptTreeCheck.extendAndVerify(store)
        } catch let failure as VerificationFailure {
            throw refusal(failure, store: store, location: location, "the log fails verification, so it was not sealed: ")
        } catch let failure as KeptTreeFailure {
            throw OperationError.invalid("the log fails verification, so it was not sealed: \(failure)")
        }
        let seal = Seal.make(after: try store.seals().last, position: report.head, events: report.events, heads: report.heads)
        try store.addSeal(seal)
        guard key != nil || makeCheckpoint else { return SealResult(seal: seal, checkpoint: nil) }
        var checkpoint = Checkpoint(size: UInt64(report.events), root: try LogTree.root(of: store, size: UInt64(report.events)), time: seal.sealedAt)
        if let key { try checkpoint.sign(with: key) }
        // Every checkpoint a seal makes is recorded (signed or not), so verify finds a removed one.
        _ = try (store as? any CheckpointRecording)?.recordCheckpoint(seal: seal.number, checkpoint: checkpoint)
        return SealResult(seal: seal, checkpoint: checkpoint)
    }

    /// Checks an erasure's reason and operator, as every face records them: not only spaces,
    /// at most ``Rules/maximumTextLength`` bytes, no control characters (a reason may hold
    /// line breaks and tabs: a ticket's text).
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming `reason` or `by`.
    public static func checkErasure(reason: String, operatorName: String) throws {
        if Rules.isBlank(reason) { throw CommandError.rejected(field: "reason", rule: "must say why (a ticket, the legal basis)") }
        try Rules.checkText(reason.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: " ").replacingOccurrences(of: "\t", with: " "), field: "reason")
        if Rules.isBlank(operatorName) { throw CommandError.rejected(field: "by", rule: "must name the operator") }
        try Rules.checkText(operatorName, field: "by")
    }

    /// Erases a user (docs/explanation/audit.md): in one transaction keeps the SHA-256 of each of their
    /// payloads, replaces the payloads with tombstones, deletes the view documents that hold
    /// their data (``Views/erasedDocuments``) and records a `UserErased` event (who and why);
    /// then rebuilds every view and, on SQLite, rewrites the file and empties the WAL.
    /// - Parameters:
    ///   - user: the user id as typed (``UserStream/existing(typed:in:)`` finds the stream).
    ///   - reason: why (a ticket, the legal basis); kept in the log.
    ///   - operatorName: who erases; kept in the log.
    ///   - archives: on a store with archives (`evtool archive`), every archive's file, oldest
    ///     first: verified with the kept log first (as `verify --archive` does; nothing is erased
    ///     when they fail), then the kept events are erased, and the decision state kept at the
    ///     boundary is replaced by one that folded none of the user's archived events, and the
    ///     views are rebuilt from the files and the kept log with the user's archived events
    ///     folded as tombstones. The files themselves are not changed: ``ErasureResult/archived``
    ///     names those that still hold the user's events.
    ///   - shouldStop: checked before the erasure, then between the rebuild's batches and before
    ///     the rewrite; when true, forget stops there. The user's view documents go in the
    ///     erasure's own transaction, so a forget stopped after it leaves none of them; running
    ///     the same forget again rebuilds the views and rewrites the file (it records nothing more).
    /// - Returns: the result; ``Erasure/Outcome/recorded`` is false when the user had nothing
    ///   left to erase (nothing was recorded; the views are rebuilt and the file rewritten all
    ///   the same, which finishes an interrupted forget).
    /// - Throws: ``OperationError/interrupted(_:)`` when stopped;
    ///   ``OperationError/unsupported(_:)`` for a store that cannot erase, and for an
    ///   archived store without `archives`; ``OperationError/invalid(_:)`` for a reason or
    ///   operator ``checkErasure(reason:operatorName:)`` refuses, and for archive files that
    ///   are not the store's or fail verification; ``CommandError`` for an unknown user.
    public static func forget(user: String, reason: String, by operatorName: String, in location: StoreLocation,
                              archives: [String] = [], shouldStop: () -> Bool = { false }) throws -> ErasureResult {
        do {
            try checkErasure(reason: reason, operatorName: operatorName)
        } catch let refused as CommandError {
            throw OperationError.invalid(refused.description)
        }
        let store = try location.openForViews()
        guard let auditable = store as? any AuditableEventStore else {
            throw OperationError.unsupported("the store \(location) cannot erase users")
        }
        if archives.isEmpty { try LogArchive.refuseRebuild(store, what: "forget") }
        let recorded = try UserStream.existing(typed: user, in: store)
        let stream = UserStream.id(for: recorded)
        var request = Erasure.Request(stream: stream, reason: reason, operatorName: operatorName, views: Views.erasedDocuments)
        var source: any EventStore & ProjectionStore = store
        var archived: [ArchivedEvents] = []
        if !archives.isEmpty {
            guard try (store as? any ArchivingStore)?.latestArchive() != nil else {
                throw OperationError.invalid("the store records no archive: forget the user without --archive")
            }
            let counts = ArchivedCounts(files: archives.count)
            let key = StreamKey(stream)
            source = try LogArchive.replay(store, files: archives) { index, batch in
                counts.events[index] += Int64(batch.lazy.filter { StreamKey($0.streamID) == key }.count)
            }
            let records = try (store as? any ArchivingStore)?.archives() ?? []
            archived = zip(archives, zip(records, counts.events)).compactMap { file, entry in
                entry.1 > 0 ? ArchivedEvents(file: file, archive: entry.0.number, events: entry.1) : nil
            }
            request.archivedState = try LoadedUser.archived(stream: stream, in: store).map { kept in
                try LoadedUser(version: kept.version, recentEventIDs: kept.recentEventIDs, lastEventHash: kept.lastEventHash).archivedStateDocument()
            }
        }
        if shouldStop() { throw OperationError.interrupted("interrupted before the erasure: nothing was erased or recorded") }
        let outcome = try auditable.erase(request)
        let file = store as? SQLiteEventStore
        func stop() throws {
            guard shouldStop() else { return }
            let done = outcome.recorded ? "the erasure is recorded (UserErased at position \(outcome.position))" : "the user had nothing left to erase"
            let rewrite = file == nil ? "" : " and the file is not rewritten, so erased bytes may remain in its free pages"
            throw OperationError.interrupted(
                "interrupted after erasing: \(done) and the user's view documents are deleted, but the views are not rebuilt\(rewrite); run the same forget again to finish (it records nothing more)")
        }
        try stop()
        let head = try Projector(store: source).rebuild { _, _ in try stop() }
        try stop()
        var walEmptied: Bool?
        if let file { walEmptied = try file.compact() }
        return ErasureResult(user: recorded, operatorName: operatorName, outcome: outcome, rebuiltThrough: head, walEmptied: walEmptied,
                             archived: archived)
    }

    /// The user's events per archive file, counted while the files are verified.
    private final class ArchivedCounts {
        var events: [Int64]
        init(files: Int) { events = Array(repeating: 0, count: files) }
    }

    private static func verifyLog(_ verifier: inout LogVerifier, head: Int64, progress: ProgressHandler) throws -> VerificationReport {
        try progress(.started(label: "verify", total: head, unit: "events"))
        let report = try verifier.verifyLog { position in try progress(.advanced(position)) }
        try progress(.finished)
        return report
    }
}
