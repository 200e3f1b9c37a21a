import EventLog
import Foundation

/// Appends events copied from another log (an import file, a source store) keeping their
/// streams, versions, ids, payloads and recording times.
///
/// - Compares before it skips: an event whose id the store already holds is skipped only
///   when it is the same event (stream, version, type, recording time, data, metadata) and
///   its given hash matches it; one that differs is refused, naming what differs, and
///   nothing of its batch is kept. So importing a file twice adds nothing, rerunning an interrupted copy
///   resumes, and a changed line is never reported as "already present".
/// - Cheap: each batch's ids are looked up in one query (``MultiStreamAppending/events(withIDs:)``),
///   not one per event; a stream's head is read once, when the copy first meets the stream.
/// - Atomic per batch: each batch (up to `batchSize` events, any streams) is one
///   transaction, so what was copied is always a prefix of the source.
/// - A gap in a stream's versions, or a different event at a version, is refused.
/// - Each event's given hash (from the export line or the source store) is recomputed from
///   its content and the hash of the event before it in the source; an event whose hash
///   does not match is refused, new or already there. An erased event (a tombstone) copied
///   with the digests its source kept (``EventLog/ProposedEvent/erasure``, what `migrate`
///   gives) is checked and chained from them, so the target's chain and tree are the
///   source's; one without (an export line) cannot be checked, since its hash covered the
///   erased payload: the target chains it anew (and the events after it get the target's
///   hashes).
/// - evtool's own streams (`$erasures`, ``EventLog/AppendValidation/isReserved(_:)``) are
///   copied too (``EventLog/StreamAppend/copiesLog``), but only events whose line gives the
///   hash that chains them in the log they came from.
/// - An event erased in the store since it was copied (a tombstone there, the payload in
///   the source) is the same event when its payloads' SHA-256 digests equal the digests the
///   store kept; it is skipped and the payload stays erased.
public struct EventCopier {
    /// The store the events are copied into.
    public let store: any MultiStreamAppending
    /// The most events one transaction appends.
    public let batchSize: Int
    /// What a source position is called in errors: "line" for a file, "source position" for a store.
    public let unit: String
    /// What the copy does, for errors: "imported", "copied".
    public let verb: String
    /// Keyed by the stream id's bytes, as the stores tell streams apart (``StreamKey``).
    private var versions: [StreamKey: Int64] = [:]
    /// Each stream's last event as the log it came from chains it: its version and hash (the
    /// given hash, or the one computed from the event before when a line has none). A line's
    /// own hash is checked against it, so a stream whose tombstones the target chained anew
    /// (their payloads are gone) still checks the events after them.
    private var heads: [StreamKey: (version: Int64, hash: [UInt8])] = [:]
    private let hasher = EventChain.Hasher()
    /// Erased events appended, whose hashes the target computed anew.
    public private(set) var rechained = 0
    /// A batch ends once its payloads and metadata reach this many bytes (after the event that
    /// reaches it), whatever `batchSize` allows (``defaultMaximumBatchBytes``).
    public var maximumBatchBytes: Int {
        get { window.maximumBytes }
        set { window.maximumBytes = newValue }
    }
    /// Events added and not yet compared or committed, with where each came from.
    private var window: BatchWindow<LogRecord.Imported>
    /// Events appended so far.
    public private(set) var appended = 0
    /// Events skipped because the store already held them, identical.
    public private(set) var skipped = 0

    /// Events per transaction of an import or a migration unless the caller says: 10,000. A
    /// batch of random event ids rewrites most leaf pages of the id index, so smaller batches
    /// write the same pages again and again: an import of 48,000 events into SQLite took 1.35 s
    /// in batches of 1,000, 1.09 s in 4,000, 0.99 s in 10,000 and no less in 50,000 (a
    /// migration 1.7 s and 1.5 s); into PostgreSQL (schema 19) 3.2 s and 3.0 s. A batch also
    /// ends at ``defaultMaximumBatchBytes`` of payloads, which bounds the memory it holds; a
    /// refused line or an interruption keeps every batch before it.
    public static let defaultBatchSize = 10_000

    /// A copier into `store`, committing `batchSize` events per transaction.
    public init(store: any MultiStreamAppending, batchSize: Int = EventCopier.defaultBatchSize, unit: String = "line", verb: String = "imported") {
        self.store = store
        self.batchSize = batchSize
        self.window = BatchWindow(batchSize: batchSize, maximumBytes: Self.defaultMaximumBatchBytes)
        self.unit = unit
        self.verb = verb
    }

    /// Adds one event; `source` names where it came from (a line number) for errors.
    /// Compares and commits a batch when it is full: `batchSize` events, or
    /// ``maximumBatchBytes`` of payloads and metadata, whichever comes first.
    public mutating func add(_ item: LogRecord.Imported, source: Int) throws(CopyError) {
        if window.add(item, event: item.event, source: source) { try flush(through: source) }
    }

    /// The most bytes of payloads and metadata one batch holds unless the caller says
    /// otherwise (64 MiB), however many events `batchSize` allows: what bounds an import's or a
    /// migration's memory when its events are large.
    public static let defaultMaximumBatchBytes = 64 << 20

    /// Whether events were added that are not yet compared and committed.
    public var hasPending: Bool { !window.isEmpty }

    /// Drops the events added since the last commit, uncommitted (a later line of their batch
    /// was refused: a batch is imported whole or not at all); the first one's source, if any.
    public mutating func discardPending() -> Int? {
        window.take().first?.source
    }

    /// Compares the pending events with what the store holds, then commits the new ones in
    /// one transaction. On any error nothing of the batch is kept. A batch that another writer
    /// raced (a version taken, an id appended in between: another import of the same file, say)
    /// is compared again, so what the other wrote is skipped, not refused; up to
    /// ``EventAppender/conflictRetries`` times.
    public mutating func flush(through source: Int) throws(CopyError) {
        guard !window.isEmpty else { return }
        let items = window.take()
        try CopyError.retryingRaces({ () throws(CopyError) in try copy(items, through: source) }, lostRace: {
            // What this copier knew of versions and heads may be the other writer's past.
            versions.removeAll(keepingCapacity: true)
            heads.removeAll(keepingCapacity: true)
        })
    }

    /// One attempt at a batch: compares it with the store, then appends what is new.
    private mutating func copy(_ items: [(item: LogRecord.Imported, source: Int)], through source: Int) throws(CopyError) {
        guard let firstSource = items.first?.source else { return }
        let range = firstSource == source ? "\(unit) \(source)" : "\(unit)s \(firstSource)–\(source)"
        func refused(_ source: Int, _ reason: String) -> CopyError {
            CopyError(source: source, reason: "\(reason) (nothing of \(range) was \(verb); \(appended.counted("event")) \(appended == 1 ? "was" : "were") before them)")
        }

        // The events of this batch the store already holds: one query.
        var stored: [UUID: RecordedEvent] = [:]
        do {
            for event in try store.events(withIDs: items.map(\.item.event.id)) { stored[event.id] = event }
        } catch {
            throw CopyError(source: firstSource, error: error)
        }
        // The kept digests of those the store has erased since (one query, only when needed).
        var keptDigests: [Int64: ErasedDigests] = [:]
        let erasedThere = items.compactMap { entry -> Int64? in
            guard let event = stored[entry.item.event.id], Erasure.isTombstone(event),
                  !Erasure.isTombstone(data: entry.item.event.data, metadata: entry.item.event.metadata) else { return nil }
            return event.position
        }
        if let low = erasedThere.min(), let high = erasedThere.max(), let audit = store as? any AuditableEventStore {
            do { keptDigests = try audit.erasedDigests(in: low...high) } catch { throw CopyError(source: firstSource, error: error) }
        }

        var versions = self.versions
        var heads = self.heads
        // The new events of this batch, and where each was given.
        var earlier: [UUID: (index: Int, source: Int)] = [:]
        var pending: [StreamAppend] = []
        var pendingCount = 0, skippedNow = 0, rechainedNow = 0
        for (index, (item, source)) in items.enumerated() {
            // First what differs from the event the store holds, or from the same id given earlier.
            let existing = stored[item.event.id]
            if let existing {
                let differences = Fields(item).differences(from: Fields(existing), erasedDigests: keptDigests[existing.position])
                guard differences.isEmpty else {
                    throw refused(source, "event \(item.event.id.lowercaseString) is already in the store with a different \(Fields.list(differences)) (stored: stream '\(existing.streamID)' version \(existing.version)\(Fields.note(differences, stored: existing, given: item)))")
                }
            }
            let first = existing == nil ? earlier[item.event.id] : nil
            if let first {
                let differences = Fields(item).differences(from: Fields(items[first.index].item), erasedDigests: nil)
                guard differences.isEmpty else {
                    throw refused(source, "event \(item.event.id.lowercaseString) is also at \(unit) \(first.source), with a different \(Fields.list(differences))")
                }
            }
            // Then the line's own hash: its content chained from the event before it, as the
            // log it came from holds them (the previous line's hash, or the stored event's).
            let previous: [UInt8]?
            if item.version == 1 {
                previous = EventChain.genesis
            } else if let head = heads[StreamKey(item.stream)], head.version == item.version - 1 {
                previous = head.hash
            } else {
                do {
                    previous = try store.read(stream: item.stream, from: item.version - 1, direction: .forwards, limit: 1).first
                        .flatMap { $0.version == item.version - 1 ? [UInt8](hexadecimal: $0.hash) : nil }
                } catch {
                    throw CopyError(source: source, error: error)
                }
            }
            // A tombstone's hash covered the erased payload, which is gone: it can be checked
            // only when its source gave the digests it kept (migrate), and is chained anew
            // in the target otherwise.
            let erased = item.event.erasure == nil && Erasure.isTombstone(data: item.event.data, metadata: item.event.metadata)
            let computed = previous.map { previous in
                let recordedAt = Timestamp.format(item.event.recordedAt ?? Date())
                if let erasure = item.event.erasure {
                    return hasher.hash(previous: previous, stream: item.stream, version: item.version, id: item.event.id, type: item.event.type,
                                       recordedAt: recordedAt, dataSHA256: erasure.dataSHA256, metadataSHA256: erasure.metadataSHA256)
                }
                return hasher.hash(previous: previous, stream: item.stream, version: item.version, id: item.event.id, type: item.event.type,
                                   recordedAt: recordedAt, data: item.event.data, metadata: item.event.metadata)
            }
            if let given = item.hash, let computed, !erased, given != computed.hexString {
                throw refused(source, "its hash \(given.prefix(16))… does not match its content (\(computed.hexString.prefix(16))… recomputed from the event before it in stream '\(item.stream)'): the event, or one before it, is not what was exported")
            }
            if let chained = item.hash.flatMap({ [UInt8](hexadecimal: $0) }) ?? computed {
                heads[StreamKey(item.stream)] = (item.version, chained)
            } else {
                heads[StreamKey(item.stream)] = nil
            }
            if existing != nil || first != nil {
                skippedNow += 1
                continue
            }
            let current: Int64
            if let known = versions[StreamKey(item.stream)] {
                current = known
            } else {
                do { current = try store.version(of: item.stream) } catch { throw CopyError(source: source, error: error) }
            }
            guard item.version > current else {
                // Perhaps another writer appended this very event after the query above: a race,
                // compared again (refused for good when the event there is another).
                var refusal = refused(source, "stream '\(item.stream)' already holds a different event at version \(item.version)")
                refusal.mayBeRace = true
                throw refusal
            }
            guard item.version == current + 1 else {
                // Or another writer's events of this stream were committed between the lookups.
                var refusal = refused(source, "stream '\(item.stream)' jumps from version \(current) to \(item.version) (events missing or out of order)")
                refusal.mayBeRace = true
                throw refusal
            }
            // A new event: its stream id must be one the stores accept now (NFC, no invisible
            // character), named by this line rather than by the batch that would refuse it.
            do { try AppendValidation.validateAppendedStreamID(item.stream) } catch { throw refused(source, "\(error)") }
            // evtool's own streams (the erasure log) take only events checked against the log
            // they came from: a line without its hash (an older export's, or one written by hand) is refused.
            if AppendValidation.isReserved(item.stream), item.hash == nil || computed == nil {
                throw refused(source, "stream '\(item.stream)' is evtool's own: its events are copied only with the hash that chains them in the log they came from (as evtool export writes it), and this \(unit) has none")
            }
            if erased, item.hash != nil { rechainedNow += 1 }
            earlier[item.event.id] = (index, source)
            if let last = pending.last, StreamKey(last.stream) == StreamKey(item.stream) {   // bytes: Swift's == would merge canonically equal ids
                pending[pending.count - 1].events.append(item.event)
            } else {
                pending.append(StreamAppend(stream: item.stream, expectedVersion: .exactly(current), events: [item.event], copiesLog: true))
            }
            versions[StreamKey(item.stream)] = item.version
            pendingCount += 1
        }
        if !pending.isEmpty {
            do {
                try store.append(pending)
            } catch {
                // Nothing of the batch was written; forget what the cache knew, it is re-read on demand.
                self.versions.removeAll(keepingCapacity: true)
                self.heads.removeAll(keepingCapacity: true)
                throw CopyError(source: source, reason: "the batch of \(range) was not written: \(error)", underlying: error)
            }
        }
        appended += pendingCount
        skipped += skippedNow
        rechained += rechainedNow
        if versions.count > 200_000 {   // bounded memory; re-read on demand
            versions.removeAll(keepingCapacity: true)
            heads.removeAll(keepingCapacity: true)
        }
        self.versions = versions
        self.heads = heads
    }

    /// What identifies an event's content, from an import line or a stored event.
    struct Fields {
        var stream: String
        var version: Int64
        var type: String
        /// Microseconds since 1970, as stores keep them.
        var recordedAt: Int64?
        var data: Data
        var metadata: Data

        init(_ item: LogRecord.Imported) {
            stream = item.stream
            version = item.version
            type = item.event.type
            recordedAt = item.event.recordedAt.map(Timestamp.microseconds)
            data = item.event.data
            metadata = item.event.metadata
        }

        init(_ event: RecordedEvent) {
            stream = event.streamID
            version = event.version
            type = event.type
            recordedAt = Timestamp.microseconds(event.recordedAt)
            data = event.data
            metadata = event.metadata
        }

        var isTombstone: Bool { Erasure.isTombstone(data: data, metadata: metadata) }

        /// The names of the fields that differ from `stored` (compared as bytes; a time one side
        /// does not give is not compared). Hashes are not compared: each store chains its own
        /// (tombstones anew), and a given hash is checked against the content instead. `erasedDigests` are the digests the store
        /// kept of `stored`'s payloads, when it erased them.
        func differences(from stored: Fields, erasedDigests: ErasedDigests?) -> [String] {
            var names: [String] = []
            if !stream.utf8.elementsEqual(stored.stream.utf8) { names.append("stream") }
            if version != stored.version { names.append("version") }
            if !type.utf8.elementsEqual(stored.type.utf8) { names.append("type") }
            if let recordedAt, let other = stored.recordedAt, recordedAt != other { names.append("recordedAt") }
            switch (isTombstone, stored.isTombstone) {
            case (false, true):
                // Erased in the store since: the same payloads if they hash to the kept digests.
                if erasedDigests?.dataSHA256 != SHA256Hasher.digest(data) { names.append("data") }
                if erasedDigests?.metadataSHA256 != SHA256Hasher.digest(metadata) { names.append("metadata") }
            default:
                if data != stored.data { names.append("data") }
                if metadata != stored.metadata { names.append("metadata") }
            }
            return names
        }

        /// "data", "data and metadata", "type, data and metadata".
        static func list(_ names: [String]) -> String {
            guard names.count > 1 else { return names.first ?? "" }
            return names.dropLast().joined(separator: ", ") + " and " + names[names.count - 1]
        }

        /// What a reader needs to tell the cases apart, after the stored place.
        static func note(_ names: [String], stored: RecordedEvent, given: LogRecord.Imported) -> String {
            var notes: [String] = []
            if names.contains("stream") || names.contains("version") {
                notes.append("given: stream '\(given.stream)' version \(given.version)")
            }
            if Erasure.isTombstone(data: given.event.data, metadata: given.event.metadata), !Erasure.isTombstone(stored) {
                notes.append("the given event is erased, the stored one is not: erase the user here with evtool forget")
            } else if Erasure.isTombstone(stored), names.contains("data") || names.contains("metadata") {
                notes.append("the stored event was erased, and the given payloads are not the ones it erased")
            }
            return notes.map { "; " + $0 }.joined()
        }
    }

    /// Why an event was not copied: where it came from (a line number, a source position),
    /// what is wrong, and the store's error when one caused it.
    public struct CopyError: Error {
        /// The line number or source position of the event refused.
        public var source: Int
        /// What is wrong, for a user (it says what of the batch was kept: nothing).
        public var reason: String
        /// The store's error behind the refusal, when there is one.
        public var underlying: (any Error)?
        /// A refusal of the file's content that another writer's commit between this batch's
        /// lookups would also explain: compared again; the same refusal after the retries
        /// stands as one of the content (invalid data, not a conflict to retry).
        var mayBeRace = false

        /// Whether another writer's append racing the batch would explain it (worth comparing
        /// the batch again): a version or an id taken in between, or ``mayBeRace``.
        var isRace: Bool {
            if mayBeRace { return true }
            switch underlying as? EventStoreError {
            case .wrongExpectedVersion?, .duplicateEventID?: return true
            default: return false
            }
        }

        init(source: Int, reason: String, underlying: (any Error)? = nil) {
            self.source = source
            self.reason = reason
            self.underlying = underlying
        }

        /// Runs `attempt` (one try at a batch) until it succeeds, again after each refusal a
        /// racing writer would explain (``isRace``), up to ``EventAppender/conflictRetries``
        /// times, calling `lostRace` before each new try; any other refusal, or the last, is
        /// thrown.
        static func retryingRaces(_ attempt: () throws(CopyError) -> Void, lostRace: () -> Void = {}) throws(CopyError) {
            var retries = 0
            while true {
                do {
                    return try attempt()
                } catch let error where retries < EventAppender.conflictRetries && error.isRace {
                    lostRace()
                    retries += 1
                }
            }
        }

        init(source: Int, error: any Error) {
            self.init(source: source, reason: "\(error)", underlying: error)
        }
    }
}
