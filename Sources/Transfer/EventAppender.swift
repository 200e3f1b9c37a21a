import EventLog
import Foundation

/// Appends events from elsewhere (``ForeignEvent``: plain lines, other producers'
/// CloudEvents), in the order given, each at the next version of its stream.
///
/// - Atomic per batch: each batch (up to `batchSize` events, any streams) is one
///   transaction, appended at the versions its streams had when it was compared. When
///   another writer appended to one of its streams meanwhile (or stored one of its given
///   ids), the batch is compared and appended again, up to ``conflictRetries`` times;
///   nothing of a batch that still fails is kept.
/// - Idempotent where the line says so: an event whose given id the store already holds
///   (or that an earlier line gave) is skipped when it is the same event (stream, type, data,
///   metadata, and time when the line gives one), and refused, naming the line and what
///   differs, when it is not. Events without a given id are always appended.
public struct EventAppender {
    /// The store the events are appended to.
    public let store: any MultiStreamAppending
    /// The most events one transaction appends.
    public let batchSize: Int
    private var window: BatchWindow<ForeignEvent>
    /// A batch ends once its payloads and metadata reach this many bytes, whatever `batchSize`
    /// allows (``EventCopier/defaultMaximumBatchBytes``).
    public var maximumBatchBytes: Int {
        get { window.maximumBytes }
        set { window.maximumBytes = newValue }
    }
    /// Where each id given so far in this run was first given, for a line that repeats it.
    private var given: [UUID: (item: ForeignEvent, source: Int)] = [:]
    /// Events appended so far.
    public private(set) var appended = 0
    /// Events skipped because the store already held them, identical.
    public private(set) var skipped = 0
    /// How many times a batch is compared and appended again after another writer got to
    /// one of its streams first.
    public static let conflictRetries = 8

    /// An appender into `store`, committing `batchSize` events per transaction.
    public init(store: any MultiStreamAppending, batchSize: Int = EventCopier.defaultBatchSize) {
        self.store = store
        self.batchSize = batchSize
        self.window = BatchWindow(batchSize: batchSize, maximumBytes: EventCopier.defaultMaximumBatchBytes)
    }

    /// Whether events were added that are not yet committed.
    public var hasPending: Bool { !window.isEmpty }

    /// Drops the events added since the last commit, uncommitted (a later line of their batch
    /// was refused: a batch is imported whole or not at all); the first one's source, if any.
    public mutating func discardPending() -> Int? {
        window.take().first?.source
    }

    /// Adds one event; `source` is its line number, for errors. Commits a batch when it is full:
    /// `batchSize` events, or ``maximumBatchBytes`` of payloads and metadata.
    public mutating func add(_ item: ForeignEvent, source: Int) throws(EventCopier.CopyError) {
        if window.add(item, event: item.event, source: source) { try flush(through: source) }
    }

    /// Compares the pending events with what the store holds, then appends the new ones in
    /// one transaction. On any error nothing of the batch is kept.
    public mutating func flush(through source: Int) throws(EventCopier.CopyError) {
        guard !window.isEmpty else { return }
        let items = window.take()
        try EventCopier.CopyError.retryingRaces { () throws(EventCopier.CopyError) in try append(items) }
    }

    /// One attempt at a batch: compares it with the store, then appends what is new.
    private mutating func append(_ items: [(item: ForeignEvent, source: Int)]) throws(EventCopier.CopyError) {
        guard let source = items.last?.source, let firstSource = items.first?.source else { return }
        let range = firstSource == source ? "line \(source)" : "lines \(firstSource)–\(source)"
        let before = appended
        func refused(_ source: Int, _ reason: String) -> EventCopier.CopyError {
            EventCopier.CopyError(source: source, reason: "\(reason) (nothing of \(range) was imported; \(before.counted("event")) \(before == 1 ? "was" : "were") before them)")
        }
        var stored: [UUID: RecordedEvent] = [:]
        let givenIDs = items.filter(\.item.idIsGiven).map(\.item.event.id)
        if !givenIDs.isEmpty {
            do {
                for event in try store.events(withIDs: givenIDs) { stored[event.id] = event }
            } catch {
                throw EventCopier.CopyError(source: firstSource, error: error)
            }
        }
        var versions: [StreamKey: Int64] = [:]
        var given = self.given
        var pending: [StreamAppend] = []
        var pendingCount = 0, skippedNow = 0
        for (item, source) in items {
            if item.idIsGiven {
                if let existing = stored[item.event.id] {
                    let differences = Self.differences(item, stream: existing.streamID, type: existing.type, data: existing.data,
                                                       metadata: existing.metadata, recordedAt: existing.recordedAt)
                    guard differences.isEmpty else {
                        throw refused(source, "event \(item.event.id.lowercaseString) (from this line's id) is already in the store with a different \(EventCopier.Fields.list(differences)) (stored: stream '\(existing.streamID)' version \(existing.version))")
                    }
                    skippedNow += 1
                    continue
                }
                if let first = given[item.event.id] {
                    let differences = Self.differences(item, stream: first.item.stream, type: first.item.event.type, data: first.item.event.data,
                                                       metadata: first.item.event.metadata, recordedAt: first.item.event.recordedAt)
                    guard differences.isEmpty else {
                        throw refused(source, "the id of this line is also at line \(first.source), with a different \(EventCopier.Fields.list(differences))")
                    }
                    skippedNow += 1
                    continue
                }
                given[item.event.id] = (item, source)
            }
            do {
                try AppendValidation.validateAppendedStreamID(item.stream)
                try AppendValidation.validate([item.event], stream: item.stream)
            } catch {
                throw refused(source, "\(error)")
            }
            let key = StreamKey(item.stream)
            let current: Int64
            if let known = versions[key] {
                current = known
            } else {
                do { current = try store.version(of: item.stream) } catch { throw EventCopier.CopyError(source: source, error: error) }
            }
            if let last = pending.last, StreamKey(last.stream) == key {
                pending[pending.count - 1].events.append(item.event)
            } else {
                pending.append(StreamAppend(stream: item.stream, expectedVersion: .exactly(current), events: [item.event]))
            }
            versions[key] = current + 1
            pendingCount += 1
        }
        if !pending.isEmpty {
            do {
                try store.append(pending)
            } catch {
                throw EventCopier.CopyError(source: source, reason: "the batch of \(range) was not written: \(error)", underlying: error)
            }
        }
        if given.count > 200_000 { given.removeAll(keepingCapacity: true) }   // bounded memory; the store is asked instead
        self.given = given
        appended += pendingCount
        skipped += skippedNow
    }

    /// The names of the fields of `item` that differ from an event already there (bytes
    /// compared; the time only when the line gave one).
    static func differences(_ item: ForeignEvent, stream: String, type: String, data: Data, metadata: Data, recordedAt: Date?) -> [String] {
        var names: [String] = []
        if !item.stream.utf8.elementsEqual(stream.utf8) { names.append("stream") }
        if !item.event.type.utf8.elementsEqual(type.utf8) { names.append("type") }
        if let time = item.event.recordedAt, let other = recordedAt, Timestamp.microseconds(time) != Timestamp.microseconds(other) {
            names.append("time")
        }
        if item.event.data != data { names.append("data") }
        if item.event.metadata != metadata { names.append("metadata") }
        return names
    }
}
