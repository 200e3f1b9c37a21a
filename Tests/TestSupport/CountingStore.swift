import EventLog
import Foundation
import Synchronization

/// Passes everything through and counts the events read from streams (tests that bound how
/// much of a stream a command, a snapshot or an as-of read takes).
public final class CountingStore: EventStore {
    /// The store every call goes to.
    public let base: any EventStore
    /// Events returned by `read(stream:…)` so far.
    public let eventsRead = Mutex(0)

    /// Counts the stream reads of `base`.
    public init(base: any EventStore) { self.base = base }

    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        let events = try base.read(stream: stream, from: version, direction: direction, limit: limit)
        eventsRead.withLock { $0 += events.count }
        return events
    }
    public func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    public func headPosition() throws -> Int64 { try base.headPosition() }
    public func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
}
