import EventLog
import Foundation

/// A store double that passes every call to `base`: a test subclasses it and overrides the
/// one call it gates, counts or delays (`append(_:)` of several streams, mostly).
open class ForwardingMultiStreamStore: MultiStreamAppending, @unchecked Sendable {
    // @unchecked: holds only `base` (itself Sendable); subclasses synchronize what they add.
    public let base: any MultiStreamAppending
    public init(_ base: any MultiStreamAppending) { self.base = base }

    open func append(_ parts: [StreamAppend]) throws -> [AppendResult] { try base.append(parts) }
    open func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    open func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    open func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    open func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int { try base.scanAll(after: position, limit: limit, body) }
    open func events(withIDs ids: [UUID]) throws -> [RecordedEvent] { try base.events(withIDs: ids) }
    open func headPosition() throws -> Int64 { try base.headPosition() }
    open func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
    open func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool { try base.waitForEvents(after: position, timeout: timeout) }
}
