import Commands
import EventLog
import Projections

/// The snapshots a runner keeps in its store: users' decision states (``DocumentSnapshots``)
/// and, each time one is saved, the user-keyed views at every thousandth version of the
/// stream passed since (``ViewSnapshots``), which time travel starts from.
///
/// What ``Application`` (and so `evtool serve`) and the command line's recording commands give
/// their ``CommandRunner``. Safe to share between threads.
public final class StoreSnapshots: UserSnapshotStore {
    /// The store that keeps the snapshots (and holds the streams they are made from).
    public let store: any EventStore & SnapshotDocuments
    private let decisions: DocumentSnapshots

    /// Snapshots kept in `store`.
    public init(store: any EventStore & SnapshotDocuments) {
        self.store = store
        self.decisions = DocumentSnapshots(store: store)
    }

    /// The snapshots of a store that keeps them; nil for one that does not.
    public static func of(_ store: any EventStore) -> StoreSnapshots? {
        (store as? any EventStore & SnapshotDocuments).map { StoreSnapshots(store: $0) }
    }

    public func latestSnapshot(stream: String) throws -> UserSnapshot? {
        try decisions.latestSnapshot(stream: stream)
    }

    /// Saves the decision state, then brings the stream's view snapshots up to its version.
    /// Cost: one upsert, and usually one lookup (see ``ViewSnapshots/update(stream:through:in:)``).
    public func save(_ snapshot: UserSnapshot, stream: String) throws {
        try decisions.save(snapshot, stream: stream)
        try ViewSnapshots.update(stream: stream, through: snapshot.version, in: store)
    }
}

extension StoreSnapshots: UserSnapshotStreamReading {
    /// The decision snapshot and the stream's events after it in one statement, on a store
    /// that reads them together (PostgreSQL: ``SnapshotStreamReading``); nil on one that does
    /// not (SQLite, in-process: two reads cost no round trip there).
    public func latestSnapshotAndEvents(stream: String, limit: Int) throws -> UserSnapshotAndEvents? {
        guard let reading = store as? any SnapshotStreamReading else { return nil }
        let read = try reading.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: 0, stream: stream, limit: limit)
        return UserSnapshotAndEvents(document: read.document, from: read.from, events: read.events)
    }

    /// On PostgreSQL (``SnapshotStreamReading``): several users in one statement.
    public var readsUsersTogether: Bool { store is any SnapshotStreamReading }

    /// The same for several users, in one statement on PostgreSQL, for the runner's
    /// load group; nil for each on a store that does not read them together.
    public func latestSnapshotsAndEvents(streams: [String], limit: Int) throws -> [UserSnapshotAndEvents?] {
        guard let reading = store as? any SnapshotStreamReading else { return streams.map { _ in nil } }
        return try reading.snapshotsAndEvents(kind: DocumentSnapshots.kind, slot: 0, streams: streams, limit: limit)
            .map { UserSnapshotAndEvents(document: $0.document, from: $0.from, events: $0.events) }
    }
}
