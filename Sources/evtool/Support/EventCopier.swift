import EventLog
import Foundation

/// Appends events copied from another log (an import file, a source store) keeping their
/// streams, versions, ids, payloads and recording times.
///
/// - Idempotent: an event whose stream already holds it at its version is skipped, so
///   importing a file twice adds nothing and rerunning an interrupted copy resumes.
/// - Atomic per batch: each batch (up to `batchSize` events, any streams) is one
///   transaction, so what was copied is always a prefix of the source.
/// - A gap in a stream's versions, or a different event at a version, is refused.
/// - Each new event's chain hash is recomputed as the target will store it; an event whose
///   given hash (from the export line or the source store) differs is refused, so a log
///   moved between stores still verifies. Erased events (tombstones) are the exception:
///   their hash covered the erased payload, which is gone, so the target chains them anew.
struct EventCopier {
    let store: any MultiStreamAppending
    let batchSize: Int
    /// Keyed by the stream id's bytes, as the stores tell streams apart (``StreamKey``).
    private var versions: [StreamKey: Int64] = [:]
    /// The chain hash of each stream's last event in the target (with pending events).
    private var heads: [StreamKey: [UInt8]] = [:]
    private let hasher = EventChain.Hasher()
    /// Erased events appended, whose hashes the target computed anew.
    private(set) var rechained = 0
    private var pending: [StreamAppend] = []
    private var pendingCount = 0
    private var pendingFirstSource = 0
    /// Events appended so far.
    private(set) var appended = 0
    /// Events skipped because the store already held them.
    private(set) var skipped = 0

    init(store: any MultiStreamAppending, batchSize: Int = 1_000) {
        self.store = store
        self.batchSize = batchSize
    }

    /// Adds one event; `source` names where it came from (a line number) for errors.
    /// Commits a batch when it is full.
    mutating func add(_ item: LogRecord.Imported, source: Int) throws(CopyError) {
        let current: Int64
        if let known = versions[StreamKey(item.stream)], heads[StreamKey(item.stream)] != nil {
            current = known
        } else {
            let last: RecordedEvent?
            do { last = try store.read(stream: item.stream, from: .max, direction: .backwards, limit: 1).first } catch {
                throw CopyError(source: source, error: error)
            }
            current = last?.version ?? 0
            heads[StreamKey(item.stream)] = last.flatMap { [UInt8](hexadecimal: $0.hash) } ?? EventChain.genesis
        }
        if item.version <= current {
            // Already there: it must be the same event.
            let existing: RecordedEvent?
            do { existing = try store.read(stream: item.stream, from: item.version, direction: .forwards, limit: 1).first } catch {
                throw CopyError(source: source, error: error)
            }
            guard existing?.id == item.event.id else {
                throw CopyError(source: source, reason: "stream '\(item.stream)' already holds a different event at version \(item.version)")
            }
            skipped += 1
            versions[StreamKey(item.stream)] = current
            if item.version == current, let existing { heads[StreamKey(item.stream)] = [UInt8](hexadecimal: existing.hash) ?? EventChain.genesis }
            return
        }
        // A new event: its stream id must be one the stores accept now (NFC, no invisible
        // character), named by this line rather than by the batch that would refuse it.
        do { try AppendValidation.validateAppendedStreamID(item.stream) } catch {
            try flush(through: source - 1)
            throw CopyError(source: source, reason: "\(error) (nothing from this line on was imported; \(appended) events were)", underlying: error)
        }
        guard item.version == current + 1 else {
            throw CopyError(source: source, reason: "stream '\(item.stream)' jumps from version \(current) to \(item.version) (events missing or out of order)")
        }
        let previous = heads[StreamKey(item.stream)] ?? EventChain.genesis
        let hash = hasher.hash(previous: previous, stream: item.stream, version: item.version, id: item.event.id, type: item.event.type,
                               recordedAt: Timestamp.format(item.event.recordedAt ?? Date()), data: item.event.data, metadata: item.event.metadata)
        let erased = item.event.data == Erasure.tombstone && item.event.metadata == Erasure.tombstone
        if let given = item.hash, item.event.recordedAt != nil, !erased, given != hash.hexString {
            try flush(through: source - 1)
            throw CopyError(source: source, reason: "its hash \(given.prefix(16))… differs from the hash recomputed in the target (\(hash.hexString.prefix(16))…): the event, or one before it in stream '\(item.stream)', is not what was exported (nothing from this event on was copied; \(appended) events were)")
        }
        if erased, item.hash != nil { rechained += 1 }
        heads[StreamKey(item.stream)] = hash
        if pending.isEmpty { pendingFirstSource = source }
        if let last = pending.last, StreamKey(last.stream) == StreamKey(item.stream) {   // bytes: Swift's == would merge canonically equal ids
            pending[pending.count - 1].events.append(item.event)
        } else {
            pending.append(StreamAppend(stream: item.stream, expectedVersion: .exactly(current), events: [item.event]))
        }
        versions[StreamKey(item.stream)] = item.version
        pendingCount += 1
        if pendingCount >= batchSize { try flush(through: source) }
        if versions.count > 200_000 { versions.removeAll(keepingCapacity: true); heads.removeAll(keepingCapacity: true) }   // bounded memory; re-read on demand
    }

    /// Commits the pending batch.
    mutating func flush(through source: Int) throws(CopyError) {
        guard !pending.isEmpty else { return }
        do {
            try store.append(pending)
        } catch {
            // Nothing of the batch was written; forget the versions it would have reached.
            versions.removeAll(keepingCapacity: true)
            heads.removeAll(keepingCapacity: true)
            let range = pendingFirstSource == source ? "\(source)" : "\(pendingFirstSource)–\(source)"
            pending.removeAll(); pendingCount = 0
            throw CopyError(source: source, reason: "the batch of \(range) was not written: \(error)", underlying: error)
        }
        appended += pendingCount
        pending.removeAll(keepingCapacity: true)
        pendingCount = 0
    }

    var hasPending: Bool { !pending.isEmpty }

    struct CopyError: Error {
        var source: Int
        var reason: String
        var underlying: (any Error)?

        init(source: Int, reason: String, underlying: (any Error)? = nil) {
            self.source = source
            self.reason = reason
            self.underlying = underlying
        }

        init(source: Int, error: any Error) {
            self.init(source: source, reason: "\(error)", underlying: error)
        }
    }
}
