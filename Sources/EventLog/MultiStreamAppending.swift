import Foundation

/// One stream's part of a multi-stream append.
public struct StreamAppend: Sendable, Hashable {
    /// The stream to append to.
    public var stream: String
    /// The version the stream must be at, as for a single append.
    public var expectedVersion: ExpectedVersion
    /// The events, in order (not empty).
    public var events: [ProposedEvent]
    /// Whether the part copies events of another evtool log, checked against it by hash
    /// (`EventCopier`: an import of evtool's export, `migrate`): only such a part
    /// may append to a stream evtool keeps for itself (``AppendValidation/isReserved(_:)``,
    /// the `$erasures` log). False for every new event.
    public var copiesLog: Bool

    /// Makes one stream's part of a multi-stream append.
    public init(stream: String, expectedVersion: ExpectedVersion, events: [ProposedEvent], copiesLog: Bool = false) {
        self.stream = stream
        self.expectedVersion = expectedVersion
        self.events = events
        self.copiesLog = copiesLog
    }
}

/// A store that can append to several streams in one transaction (imports and migrations
/// copy a log batch by batch, so that what they copied is always a prefix of the source).
public protocol MultiStreamAppending: EventStore {
    /// Appends every part, in order, in one transaction: all of them or none.
    /// - Throws: the first part's failure, as ``EventStore/append(_:to:expectedVersion:)``
    ///   would throw it; nothing of any part is then appended.
    @discardableResult
    func append(_ parts: [StreamAppend]) throws -> [AppendResult]

    /// The stored events whose ids are among `ids`, in no particular order, read in one query:
    /// what a copy compares its events with before it skips those already there.
    /// Cost: O(ids × log n), plus the payloads of the events found.
    func events(withIDs ids: [UUID]) throws -> [RecordedEvent]
}
