import EventLog
import Foundation
import Transfer

/// The whole log of an archived store for `rebuild --archive FILE…` (docs/explanation/audit.md
/// "Archives"): the archive files' events below the latest boundary, then the store's own.
/// Everything else (the views, their checkpoints, the head) is the store's.
///
/// Read forwards, as a rebuild reads: a read from a position before the last one handed out
/// opens the files again. Each file's SHA-256 is checked against the store's record of it when
/// it has been read to its end; a file that differs stops the read.
final class ArchiveReplay: EventStore, ProjectionStore, @unchecked Sendable {
    // @unchecked: the cursor below is used only under `lock`.
    private let base: any EventStore & ProjectionStore
    private let files: [String]
    private let records: [ArchiveBoundary]
    /// The first position the store itself holds every event from.
    private let boundary: Int64
    private let lock = NSLock()
    private var index = 0
    private var file: ArchiveFile?
    private var buffer: ArraySlice<RecordedEvent> = []
    /// The position of the last archived event handed out (or skipped).
    private var cursor: Int64 = 0
    /// The `UserErased` events found in the archive files (by the verification before the replay).
    private let archivedErasures: [RecordedEvent]
    /// Per erased stream (by the id's bytes), the last position an erasure covers: the archived
    /// events there are handed out as tombstones (``masked(_:)``). Read again at each start.
    private var erasedThrough: [StreamKey: Int64] = [:]

    /// - Throws: ``OperationError/invalid(_:)`` unless `files` are as many as the store's archives.
    /// - Parameter archivedErasures: the `UserErased` events the archive files hold (erasures
    ///   recorded before an archive moved them out); the store's own are read at each start.
    init(store: any EventStore & ProjectionStore, archiving: any ArchivingStore, files: [String], archivedErasures: [RecordedEvent] = []) throws {
        let records = try archiving.archives()
        guard let latest = records.last, records.count == files.count else {
            throw OperationError.invalid("the store records \(records.count) archive\(records.count == 1 ? "" : "s"); give every archive's file, oldest first, not \(files.count)")
        }
        base = store
        self.files = files
        self.records = records
        boundary = latest.position
        self.archivedErasures = archivedErasures
    }

    /// Each erased stream's last covered position, from the archived `UserErased` events and the
    /// store's (an erasure recorded after the files were made covers events inside them).
    private func erasures() throws -> [StreamKey: Int64] {
        var through: [StreamKey: Int64] = [:]
        for event in try archivedErasures + base.read(stream: Erasure.stream) where event.type == Erasure.eventType {
            guard let covered = Erasure.coverage(of: event.data) else { continue }
            through[StreamKey(covered.stream)] = max(through[StreamKey(covered.stream)] ?? 0, covered.throughPosition)
        }
        return through
    }

    /// An archived event of an erased user, covered by an erasure recorded since: handed out as
    /// the store holds its kept events, a tombstone, so that no view folds what was erased.
    private func masked(_ event: RecordedEvent) -> RecordedEvent {
        guard let through = erasedThrough[StreamKey(event.streamID)], event.position <= through else { return event }
        var erased = event
        erased.data = Erasure.tombstone
        erased.metadata = Erasure.tombstone
        return erased
    }

    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        guard limit > 0 else { return [] }
        if position >= boundary - 1 { return try base.readAll(after: position, limit: limit) }
        let archived: [RecordedEvent] = try lock.withLock {
            if position < cursor || file == nil && index == 0 {
                index = 0
                file = try ArchiveFile(path: files[0])
                buffer = []
                cursor = 0
                erasedThrough = try erasures()
            }
            var events: [RecordedEvent] = []
            while events.count < limit {
                if buffer.isEmpty {
                    guard let current = file else { break }
                    let batch = try current.next()
                    if batch.isEmpty {
                        guard current.sha256() == records[index].fileSHA256 else {
                            throw OperationError.invalid("the archive file '\(files[index])' is not the file of archive \(records[index].number) (its SHA-256 differs from the one the store recorded): it changed since it was verified")
                        }
                        index += 1
                        file = index < files.count ? try ArchiveFile(path: files[index]) : nil
                        continue
                    }
                    buffer = batch[...]
                }
                let event = buffer.removeFirst()
                cursor = event.position
                if event.position > position { events.append(masked(event)) }
            }
            return events
        }
        if !archived.isEmpty { return archived }
        return try base.readAll(after: max(position, boundary - 1), limit: limit)
    }

    // MARK: - The store's own

    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        throw OperationError.unsupported("a rebuild from archive files appends nothing")
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
    func projectionStatuses() throws -> [ProjectionStatus] { try base.projectionStatuses() }
    func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus {
        try base.startGeneration(of: projection, version: version)
    }
    func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
        try base.documents(of: projection, generation: generation, keys: keys)
    }
    func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)] {
        try base.documents(of: projection, generation: generation, after: key, limit: limit)
    }
    func commit(_ changes: ViewChanges) throws { try base.commit(changes) }
    func dropGeneration(of projection: String, generation: Int) throws { try base.dropGeneration(of: projection, generation: generation) }
}

extension LogArchive {
    /// The whole log of an archived store, from `files` (every archive's, oldest first) and the
    /// store, for a rebuild: the files are verified with the kept log first (each against the
    /// store's record of it: SHA-256, count, the chain across every boundary, the heads carried
    /// over), as `verify --archive` does.
    /// - Throws: ``OperationError/invalid(_:)`` when the store has no archives, the files are
    ///   not every archive's in order, or they fail verification (then nothing was rebuilt).
    /// - Parameter observe: each batch of a file's events as the verification reads it (the
    ///   file's index in `files`).
    package static func replay(_ store: any EventStore & ProjectionStore, files: [String],
                               observe: @escaping (Int, [RecordedEvent]) -> Void = { _, _ in }) throws -> any EventStore & ProjectionStore {
        guard let archiving = store as? any ArchivingStore else {
            throw OperationError.invalid("the store keeps no archives, so there are no archive files to rebuild from")
        }
        let erasures = ErasureList()
        var checker = try Self.verifier(for: store, files: files) { index, batch in
            erasures.events += batch.filter { $0.streamID == Erasure.stream && $0.type == Erasure.eventType }
            observe(index, batch)
        }
        do {
            _ = try checker.verifyLog()
        } catch let failure as VerificationFailure {
            throw OperationError.invalid("the log fails verification with the archive files, so no view was rebuilt: \(failure)")
        }
        return try ArchiveReplay(store: store, archiving: archiving, files: files, archivedErasures: erasures.events)
    }

    /// The archived `UserErased` events, gathered while the files are verified.
    private final class ErasureList {
        var events: [RecordedEvent] = []
    }
}
