import EventLog
import Foundation

/// A snapshot store that also holds the log the runner appends to and reads a user's latest
/// snapshot and the stream's events after it in one round trip (``SnapshotStreamReading``):
/// the runner's load of a user it does not hold, which otherwise reads the snapshot and then
/// the stream.
///
/// Conform only a snapshot store whose store *is* the runner's log (``CommandRunner`` reads the
/// stream's events from it instead of from its own store). The runner checks the snapshot
/// against the first event read, exactly as it does after two reads.
public protocol UserSnapshotStreamReading: UserSnapshotStore {
    /// The stream's latest snapshot and up to `limit` events from the version it was taken at
    /// (from version 1 without a usable snapshot), in one round trip; nil when this store cannot
    /// read both at once (the runner then reads them apart).
    /// - Throws: the store's errors of reading (an unreadable snapshot is not one: it is nil).
    func latestSnapshotAndEvents(stream: String, limit: Int) throws -> UserSnapshotAndEvents?

    /// Whether ``latestSnapshotsAndEvents(streams:limit:)`` reads several users in one round
    /// trip: the runner then reads the users its threads need at the same time together
    /// (its load group). The default: false.
    var readsUsersTogether: Bool { get }

    /// ``latestSnapshotAndEvents(stream:limit:)`` for each of `streams` (a stream may come more
    /// than once), in their order. The default reads them one by one.
    func latestSnapshotsAndEvents(streams: [String], limit: Int) throws -> [UserSnapshotAndEvents?]
}

extension UserSnapshotStreamReading {
    /// False: a store reads its users one by one unless it says otherwise.
    public var readsUsersTogether: Bool { false }

    /// Each user's ``latestSnapshotAndEvents(stream:limit:)``, one after another.
    public func latestSnapshotsAndEvents(streams: [String], limit: Int) throws -> [UserSnapshotAndEvents?] {
        try streams.map { try latestSnapshotAndEvents(stream: $0, limit: limit) }
    }
}

/// A user's latest snapshot and the events of the stream from the version it was taken at.
public struct UserSnapshotAndEvents: Sendable {
    /// The snapshot; nil when none is kept or the one kept cannot be used by these rules
    /// (the stream is the truth: it is then folded from its start).
    public var snapshot: UserSnapshot?
    /// The version ``events`` start at (inclusive).
    public var from: Int64
    /// The stream's events with versions ≥ ``from``, ascending.
    public var events: [RecordedEvent]

    /// Makes one from what a store read: `document` is the snapshot's JSON as
    /// ``DocumentSnapshots`` keeps it (decoded here; one that does not decode is dropped).
    public init(document: Data?, from: Int64, events: [RecordedEvent]) {
        var snapshot: UserSnapshot?
        if let document {
            do {
                snapshot = try EventJSON.decode(UserSnapshot.self, type: UserSnapshot.typeName, from: document)
            } catch {
                // As for a snapshot read alone: an unreadable snapshot is skipped, never an error
                // (a snapshot only saves reading time).
                snapshot = nil
            }
        }
        self.snapshot = snapshot
        self.from = from
        self.events = events
    }
}
