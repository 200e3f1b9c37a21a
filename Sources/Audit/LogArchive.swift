import Commands
import EventLog
import StoreLocations
import StorePostgres
import Foundation
import Projections
import Transfer

/// `archive`: the oldest events moved out of the store into a file (docs/explanation/audit.md "Archives").
///
/// The events below a position are written in the export format (JSON Lines) to a new file,
/// which is then read back and verified against the log: every event's chain hash from the
/// heads before it (the previous archive's, or the start), the seals inside it, the kept
/// Merkle tree's leaves and its root at the archived size, and that the rest of the log still
/// chains from the file's last events. The file is flushed to disk and put in place without
/// replacing anything; then one transaction records the boundary (the position, the heads
/// carried over, each stream's decision state there, the file's SHA-256) and removes the
/// archived rows. A crash leaves the store as it was before that transaction or after it.
public enum LogArchive {
    /// An archive taken.
    public struct Archiving: Sendable {
        /// What the store recorded.
        public var boundary: ArchiveBoundary
        /// The rows removed from the events table.
        public var removed: Int64
        /// The seals inside the archive that were checked against its events.
        public var seals: Int
    }

    /// A verifier of `store` that starts after its latest archive (the heads carried over),
    /// or at position 1 when nothing was archived.
    public static func verifier(for store: any EventStore) throws -> LogVerifier {
        var verifier = try LogVerifier(store: store)
        if let archiving = store as? any ArchivingStore, let latest = try archiving.latestArchive() {
            verifier.carryOver(latest, heads: try archiving.archivedHeads())
        }
        return verifier
    }

    /// A verifier of `store` that reads the archive files first (every archive's, oldest
    /// first), checking each against the store's record (its SHA-256 and event count), and the
    /// heads at their end against the heads carried over.
    /// - Parameter observe: called with each batch of a file's events (the file's index in
    ///   `files`) as the verifier reads it.
    /// - Throws: ``OperationError/invalid(_:)`` when the store has no archives or their number differs.
    public static func verifier(for store: any EventStore, files: [String],
                                observe: @escaping (Int, [RecordedEvent]) -> Void = { _, _ in }) throws -> LogVerifier {
        guard let archiving = store as? any ArchivingStore else {
            throw OperationError.invalid("the store keeps no archives, so there is nothing to verify archive files against")
        }
        let records = try archiving.archives()
        guard let latest = records.last else { throw OperationError.invalid("the store records no archive: verify it without --archive") }
        guard files.count == records.count else {
            throw OperationError.invalid("the store records \(records.count) archive\(records.count == 1 ? "" : "s"); give every archive's file, oldest first (\(records.map { "'\($0.fileName)'" }.joined(separator: ", "))), not \(files.count)")
        }
        let carried = try archiving.archivedHeads()
        guard carried.digest().hexString == latest.headsSHA256 else {
            throw OperationError.invalid("the log fails verification: the streams' heads the store carried over at archive \(latest.number) differ from those the archive recorded: they were changed")
        }
        var verifier = try LogVerifier(store: store)
        var index = 0
        var current = try ArchiveFile(path: files[0])
        var read: Int64 = 0
        verifier.verifyArchivesFirst(end: latest, stillInTable: false) {
            while true {
                let batch = try current.next()
                read += Int64(batch.count)
                if !batch.isEmpty {
                    observe(index, batch)
                    return batch
                }
                let record = records[index]
                guard current.sha256() == record.fileSHA256 else {
                    throw OperationError.invalid("the archive file '\(files[index])' is not the file of archive \(record.number) (its SHA-256 differs from the one the store recorded): it was changed, or it is another archive's")
                }
                guard read == record.events else {
                    throw OperationError.invalid("the archive files up to '\(files[index])' hold \(read.counted("event")), and archive \(record.number) records \(record.events)")
                }
                index += 1
                guard index < files.count else { return [] }
                current = try ArchiveFile(path: files[index])
            }
        }
        return verifier
    }

    /// Archives the events below `position` to a new file at `path` (see the type's comment).
    /// - Parameter progress: the events written, then the positions verified.
    /// - Throws: ``OperationError/invalid(_:)`` when `position` is not after the last boundary
    ///   and at most the head, a view or the kept tree has not reached it, the file exists,
    ///   or the log or the file fails verification (then nothing was archived);
    ///   ``OperationError/unsupported(_:)`` for a store that cannot archive.
    public static func archive(_ store: any EventStore & ProjectionStore, location: StoreLocation, before position: Int64, to path: String,
                               progress: ProgressHandler = { _ in }) throws -> Archiving {
        guard let archiving = store as? any ArchivingStore & AuditableEventStore, let kept = store as? any MerkleTreeStore else {
            throw OperationError.unsupported("the store \(location) cannot archive events")
        }
        // The single-table layout keeps an id unique only while its event is in the table.
        if let postgres = store as? PostgresEventStore {
            do {
                try postgres.checkCanArchive()
            } catch EventStoreError.invalidInput(let message) {
                throw OperationError.unsupported(message)
            }
        }
        var status = stat()
        guard lstat(path, &status) != 0 else {
            throw OperationError.invalid("'\(path)' exists: an archive never replaces a file; name a new one")
        }
        let previous = try archiving.latestArchive()
        let start = previous?.position ?? 1
        let head = try store.headPosition()
        guard position > start else {
            if let previous {
                throw OperationError.invalid("--before \(position): the events before position \(start) are archived already (archive \(previous.number)); name a later position")
            }
            throw OperationError.invalid("--before \(position): no event is below it (positions start at 1)")
        }
        guard position <= head else {
            throw OperationError.invalid("--before \(position) is beyond the head of the log (position \(head)): the event at the head stays in the log")
        }
        // Everything derived from the archived events must have folded them: the views and the kept tree.
        let statuses = try store.projectionStatuses().filter(\.isActive)
        for name in Projector(store: store).names {
            let checkpoint = statuses.first(where: { $0.name == name })?.position ?? 0
            guard checkpoint >= position - 1 else {
                throw OperationError.invalid("--before \(position): the view '\(name)' is checkpointed at position \(checkpoint), before position \(position - 1); run 'evtool project' first (views must have folded every event an archive removes)")
            }
        }
        guard let tree = try LogTree.extendKept(store), tree.position >= position - 1 else {
            throw OperationError.invalid("--before \(position): the kept Merkle tree does not reach position \(position - 1) yet (an append still running holds it back); try again")
        }
        // The log as it is, from the previous boundary.
        _ = try LogAudit.verify(store, location: location)

        let temporary = path + ".partial"
        try write(store, from: start - 1, through: position - 1, to: temporary, progress: progress)
        var placed = false
        defer { if !placed { unlink(temporary) } }
        let checked = try check(temporary, store: store, archiving: archiving, kept: kept, previous: previous, position: position, progress: progress)
        // Put in place without replacing a file made meanwhile, and make the name durable.
        guard link(temporary, path) == 0 else {
            let reason = errno == EEXIST ? "it exists (an archive never replaces a file)" : String(cString: strerror(errno))
            throw OperationError.cannotWrite("cannot create '\(path)': \(reason)")
        }
        placed = true
        unlink(temporary)
        try syncDirectory(of: path)

        let boundary = ArchiveBoundary(number: (previous?.number ?? 0) + 1, position: position, events: checked.events, fileEvents: checked.fileEvents,
                                       fileSHA256: checked.sha256, fileName: path, headsSHA256: checked.heads.digest().hexString,
                                       treeRoot: checked.root.hexString, archivedAt: Timestamp.format(Date()))
        let removed: Int64
        do {
            removed = try archiving.recordArchive(boundary, heads: checked.heads, states: checked.states)
        } catch {
            unlink(path)
            throw error
        }
        return Archiving(boundary: boundary, removed: removed, seals: checked.seals)
    }

    /// A rebuild from position 0 of a store whose oldest events are archived would make views
    /// without them: refused, naming the archives.
    /// - Throws: ``OperationError/unsupported(_:)`` when the store has archives.
    public static func refuseRebuild(_ store: any EventStore, what: String) throws {
        guard let archiving = store as? any ArchivingStore, let latest = try archiving.latestArchive() else { return }
        throw OperationError.unsupported("the events below position \(latest.position) are archived (\(latest.number) archive\(latest.number == 1 ? "" : "s"), the latest '\(latest.fileName)'), and '\(what)' folds every view from the first event: it would lose them; give every archive's file, oldest first: 'evtool \(what) \(what == "forget" ? "--user ID --reason TEXT " : "")--archive FILE…' (the views, checkpointed before the archive, stay as they are)")
    }

    // MARK: - Steps

    /// Writes the events after `from` through `through` as export lines to a new file, flushed to disk.
    private static func write(_ store: any EventStore, from: Int64, through: Int64, to path: String, progress: ProgressHandler) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST ? "it exists (left by an archive that was stopped? remove it and run again)" : String(cString: strerror(errno))
            throw OperationError.cannotWrite("cannot create '\(path)': \(reason)")
        }
        var closed = false
        defer { if !closed { close(descriptor) } }
        do {
            var buffer: [UInt8] = []
            buffer.reserveCapacity(1 << 20)
            func flush() throws {
                var offset = 0
                while offset < buffer.count {
                    let written = buffer.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress! + offset, buffer.count - offset) }
                    if written < 0 && errno == EINTR { continue }
                    guard written > 0 else { throw OperationError.cannotWrite("cannot write '\(path)': \(String(cString: strerror(errno)))") }
                    offset += written
                }
                buffer.removeAll(keepingCapacity: true)
            }
            try progress(.started(label: "archive", total: through - from, unit: "events"))
            var count: Int64 = 0
            try LogExport.write(store, format: .jsonl, from: from, to: through) { line in
                buffer.append(contentsOf: line.utf8)
                buffer.append(0x0A)
                count += 1
                if buffer.count >= 1 << 20 {
                    try flush()
                    try progress(.advanced(count))
                }
            }
            try flush()
            try progress(.completed(count))
            try progress(.finished)
            guard fsync(descriptor) == 0 else { throw OperationError.cannotWrite("cannot write '\(path)': \(String(cString: strerror(errno)))") }
            closed = true
            guard close(descriptor) == 0 else { throw OperationError.cannotWrite("cannot write '\(path)': \(String(cString: strerror(errno)))") }
        } catch {
            unlink(path)
            throw error
        }
    }

    private struct Checked {
        var events: Int64
        var fileEvents: Int64
        var sha256: String
        var heads: StreamHeads
        var root: [UInt8]
        var states: [StreamKey: Data]
        var seals: Int
    }

    /// Reads the file back and verifies it against the log (see the type's comment).
    private static func check(_ path: String, store: any EventStore, archiving: any ArchivingStore & AuditableEventStore, kept: any MerkleTreeStore,
                              previous: ArchiveBoundary?, position: Int64, progress: ProgressHandler) throws -> Checked {
        let file = try ArchiveFile(path: path)
        let earlier = UInt64(previous?.events ?? 0)
        // The tree of every archived leaf: the earlier archives' from the kept tree, then the file's.
        var builder = MerkleFrontier()
        var leafIndex: UInt64 = 0
        while leafIndex < earlier {
            let rows = try kept.merkleLeafHashes(from: leafIndex, limit: Int(min(10_000, earlier - leafIndex)))
            guard !rows.isEmpty else { throw OperationError.invalid("the kept Merkle tree lacks leaf \(leafIndex) of the archived events: run 'evtool verify'") }
            for hash in rows { builder.append(leafHash: hash) }
            leafIndex += UInt64(rows.count)
        }
        var states: [StreamKey: LoadedUser] = [:]
        var fileEvents: Int64 = 0
        var failure: (any Error)?
        var verifier = try LogVerifier(store: store)
        if let previous { verifier.carryOver(previous, heads: try archiving.archivedHeads()) }
        verifier.verifyArchivesFirst(end: nil, stillInTable: true) {
            let batch = try file.next()
            guard let last = batch.last else { return [] }
            guard last.position < position else {
                throw OperationError.invalid("the archive file holds position \(last.position), at or after --before \(position)")
            }
            let leaves = try kept.merkleLeafHashes(from: leafIndex, limit: batch.count)
            for (offset, event) in batch.enumerated() {
                let leaf = try LogTree.leafHash(of: event)
                guard offset < leaves.count, leaves[offset] == leaf else {
                    throw OperationError.invalid("the archive file's event at position \(event.position) is not the kept Merkle tree's leaf \(leafIndex): the file is not the log")
                }
                builder.append(leafHash: leaf)
                leafIndex += 1
                let key = StreamKey(event.streamID)
                if states[key] == nil { states[key] = try LoadedUser.archived(stream: event.streamID, in: store) ?? LoadedUser() }
                do {
                    try states[key]?.fold(event)
                } catch {
                    failure = failure ?? error
                }
            }
            fileEvents += Int64(batch.count)
            return batch
        }
        do {
            try progress(.started(label: "verify", total: try store.headPosition(), unit: "events"))
            _ = try verifier.verifyLog { try progress(.advanced($0)) }
            try progress(.finished)
        } catch let failure as VerificationFailure {
            throw OperationError.invalid("the archive fails verification against the log, so nothing was archived: \(failure)")
        }
        if let failure { throw OperationError.invalid("an archived event cannot be folded into its user's decision state, so nothing was archived: \(failure)") }
        let events = Int64(earlier) + fileEvents
        // The heads at the boundary: every stream's head as of the last archived event.
        var heads = previous == nil ? StreamHeads() : try archiving.archivedHeads()
        for (key, loaded) in states {
            guard let hash = [UInt8](hexadecimal: loaded.lastEventHash) else { throw OperationError.invalid("the archived events of stream '\(key.id)' end with a malformed hash") }
            heads[key.id] = StreamHeads.Head(version: loaded.version, chainHash: hash)
        }
        let root = builder.root
        guard root == (try LogTree.root(of: store, size: UInt64(events))) else {
            throw OperationError.invalid("the archived events' Merkle root differs from the kept tree's at \(events.counted("event")), so nothing was archived: run 'evtool verify'")
        }
        let seals = try archiving.seals().filter { $0.position >= (previous?.position ?? 1) - 1 && $0.position < position }.count
        var documents: [StreamKey: Data] = [:]
        var allStates = states
        if previous != nil {
            // Streams of earlier archives with no event in this one keep their state.
            for (stream, _) in heads.sorted where allStates[StreamKey(stream)] == nil {
                if let carried = try LoadedUser.archived(stream: stream, in: store) { allStates[StreamKey(stream)] = carried }
            }
        }
        for (key, loaded) in allStates { documents[key] = try loaded.archivedStateDocument() }
        return Checked(events: events, fileEvents: fileEvents, sha256: file.sha256(), heads: heads, root: root, states: documents, seals: seals)
    }

    private static func syncDirectory(of path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let descriptor = open(directory.isEmpty ? "." : directory, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else { throw OperationError.cannotWrite("cannot flush the folder of '\(path)': \(String(cString: strerror(errno)))") }
    }
}
