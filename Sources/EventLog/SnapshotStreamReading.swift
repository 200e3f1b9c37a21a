import Foundation

/// A store that reads a stream's snapshot and the stream's events after it in **one round
/// trip**: what a command runner needs for a user it does not hold yet (``SnapshotDocuments``
/// and then ``EventStore/read(stream:from:direction:limit:)`` are two).
///
/// The snapshot is the document of `kind` in `slot` for the stream (as
/// ``SnapshotDocuments/snapshotDocument(kind:slot:stream:)`` reads it); the events are those
/// ``EventStore/read(stream:from:direction:limit:)`` reads forwards from ``SnapshotAndEvents/from``:
/// the version the document names in its top-level `version` member (a whole number ≥ 1
/// written as digits), or 1 when there is no document or it names none. The reader still
/// checks the snapshot against the first of those events, as for two reads: the store only
/// saves the round trip. Safe to share between threads.
public protocol SnapshotStreamReading: SnapshotDocuments, EventStore {
    /// The snapshot of `kind` in `slot` for `stream` and up to `limit` of the stream's events
    /// from the version it names, in one round trip.
    /// - Throws: ``EventStoreError/invalidInput(_:)`` for a bad stream id, slot or kind; the
    ///   store's errors of reading.
    func snapshotAndEvents(kind: String, slot: Int64, stream: String, limit: Int) throws -> SnapshotAndEvents

    /// ``snapshotAndEvents(kind:slot:stream:limit:)`` for each of `streams` (a stream may come
    /// more than once), in their order, in one round trip on a store that can (the default
    /// reads them one by one).
    /// - Throws: what ``snapshotAndEvents(kind:slot:stream:limit:)`` throws, for any of them.
    func snapshotsAndEvents(kind: String, slot: Int64, streams: [String], limit: Int) throws -> [SnapshotAndEvents]
}

extension SnapshotStreamReading {
    /// Each stream's ``snapshotAndEvents(kind:slot:stream:limit:)``, one round trip after another.
    public func snapshotsAndEvents(kind: String, slot: Int64, streams: [String], limit: Int) throws -> [SnapshotAndEvents] {
        try streams.map { try snapshotAndEvents(kind: kind, slot: slot, stream: $0, limit: limit) }
    }
}

/// What ``SnapshotStreamReading/snapshotAndEvents(kind:slot:stream:limit:)`` read.
public struct SnapshotAndEvents: Sendable {
    /// The snapshot document's JSON; nil when none is kept.
    public var document: Data?
    /// The version the events start at (inclusive): the document's `version`, else 1.
    public var from: Int64
    /// The stream's events with versions ≥ ``from``, ascending, at most the limit asked for.
    public var events: [RecordedEvent]

    /// Makes a result.
    public init(document: Data?, from: Int64, events: [RecordedEvent]) {
        self.document = document
        self.from = from
        self.events = events
    }
}
