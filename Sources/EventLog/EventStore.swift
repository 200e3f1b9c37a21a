import Foundation

/// An append-only log of events, split into streams, readable in one global order.
///
/// Every store (in memory, SQLite, PostgreSQL) implements this protocol with the same
/// behaviour, which the conformance suite in the tests proves.
public protocol EventStore: Sendable {
    /// Appends a batch of events to one stream atomically: all of them or none.
    ///
    /// - Parameters:
    ///   - events: the events, in order; at least one.
    ///   - stream: the stream id: 1…512 bytes of UTF-8, no control characters.
    ///   - expectedVersion: what the stream's version must be for the append to happen.
    /// - Returns: the stream's new version and the positions of the new events.
    /// - Throws: ``EventStoreError/wrongExpectedVersion(stream:expected:actual:)``,
    ///   ``EventStoreError/duplicateEventID(_:)``, ``EventStoreError/invalidInput(_:)`` (empty
    ///   batch, bad stream id or type, data or metadata that is not JSON),
    ///   ``EventStoreError/unavailable(_:)``, ``EventStoreError/outcomeUnknown(_:)``.
    @discardableResult
    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult

    /// Reads up to `limit` events of one stream, starting at `version` (inclusive).
    ///
    /// Forwards returns versions ≥ `version` ascending; backwards versions ≤ `version`
    /// descending (pass `Int64.max` to start at the end). A missing stream reads as empty.
    /// Cost: O(log n + limit).
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent]

    /// Reads up to `limit` events of the whole log with positions greater than `position`,
    /// in position order. Only events whose position can no longer be preceded by a later
    /// commit are returned, so a reader that follows the log by position never skips one.
    /// Cost: O(log n + limit).
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent]

    /// Lends up to `limit` events of the whole log after `position` to `body`, in position
    /// order, with the same visibility rule as ``readAll(after:limit:)``, without copying
    /// their payloads: for readers that decode each payload at once (projections).
    /// - Returns: how many events were lent.
    ///
    /// The default reads them with ``readAll(after:limit:)``; SQLite lends its row buffers and
    /// holds its connection meanwhile, so `body` must not call back into the same store.
    func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int

    /// The position of the last event in the log (0 when empty).
    func headPosition() throws -> Int64

    /// The current version of a stream (0 when it has no events).
    func version(of stream: String) throws -> Int64

    /// Waits until the log has events after `position` or `timeout` passes.
    /// - Returns: whether there are events after `position`.
    ///
    /// The default polls ``headPosition()`` with growing pauses (5 ms to 100 ms); a store with
    /// notifications (PostgreSQL's LISTEN/NOTIFY) wakes at once and re-checks periodically.
    func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool
}

/// One event of the log lent by ``EventStore/scanAll(after:limit:_:)``: what a projection
/// reads, with the payload's bytes valid only during the call that lends them.
public struct LentEvent {
    /// The event's place in the log.
    public let position: Int64
    /// The stream it belongs to.
    public let streamID: String
    /// Its type, e.g. `Favorited`.
    public let type: String
    /// When the store recorded it.
    public let recordedAt: Date
    /// The payload (JSON), valid only until the lending call returns.
    public let data: UnsafeRawBufferPointer

    /// Makes a lent event over `data`, which must stay valid while it is lent.
    public init(position: Int64, streamID: String, type: String, recordedAt: Date, data: UnsafeRawBufferPointer) {
        self.position = position
        self.streamID = streamID
        self.type = type
        self.recordedAt = recordedAt
        self.data = data
    }
}

@available(*, unavailable)
extension LentEvent: Sendable {}

extension EventStore {
    /// Lends the events of ``readAll(after:limit:)`` one by one (the default: a store that can lend its row buffers does so without copying).
    public func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        let events = try readAll(after: position, limit: limit)
        for event in events {
            try event.data.withUnsafeBytes { data in
                try body(LentEvent(position: event.position, streamID: event.streamID, type: event.type, recordedAt: event.recordedAt, data: data))
            }
        }
        return events.count
    }

    /// Polls ``headPosition()`` with pauses growing from 5 ms to 100 ms until an event after `position` is there or `timeout` passed.
    public func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var pause = Duration.milliseconds(5)
        while true {
            if try headPosition() > position { return true }
            let now = clock.now
            if now >= deadline { return false }
            Thread.sleep(forTimeInterval: min(pause, deadline - now).timeInterval)
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// Appends one event; see ``append(_:to:expectedVersion:)``.
    @discardableResult
    public func append(_ event: ProposedEvent, to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try append([event], to: stream, expectedVersion: expectedVersion)
    }

    /// Reads a whole stream forwards, in batches.
    public func read(stream: String) throws -> [RecordedEvent] {
        var all: [RecordedEvent] = []
        var next: Int64 = 1
        while true {
            let batch = try read(stream: stream, from: next, direction: .forwards, limit: 1_000)
            all.append(contentsOf: batch)
            guard let last = batch.last, batch.count == 1_000 else { return all }
            next = last.version + 1
        }
    }

    /// Calls `body` with the log's events after `position`, in batches of at most
    /// `batchSize`, until the head is reached. Memory stays bounded by one batch.
    /// - Returns: the position of the last event passed to `body` (or `position`).
    @discardableResult
    public func forEachBatch(
        after position: Int64 = 0, batchSize: Int = 1_000, _ body: ([RecordedEvent]) throws -> Void
    ) throws -> Int64 {
        var cursor = position
        while true {
            let batch = try readAll(after: cursor, limit: batchSize)
            guard let last = batch.last else { return cursor }
            try body(batch)
            cursor = last.position
            if batch.count < batchSize { return cursor }
        }
    }
}
