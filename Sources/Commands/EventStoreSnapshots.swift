import EventLog
import Foundation

/// Keeps snapshots as events in an event store of their own: one stream per user (named as
/// in the log), the latest event being the snapshot in force.
///
/// Give it a store that is not the log (another SQLite file, another PostgreSQL schema):
/// snapshots are a cache, and the log should hold only what users did. Safe to share
/// between threads if the store is.
public final class EventStoreSnapshots: UserSnapshotStore {
    /// The store that holds the snapshots.
    public let store: any EventStore

    /// Makes a snapshot store over `store`.
    public init(store: any EventStore) {
        self.store = store
    }

    /// Reads the stream's last snapshot event. Cost: one backwards read of one event, one decode.
    public func latestSnapshot(stream: String) throws -> UserSnapshot? {
        guard let last = try store.read(stream: stream, from: .max, direction: .backwards, limit: 1).first,
              last.type == UserSnapshot.typeName else { return nil }
        return try EventJSON.decode(UserSnapshot.self, type: UserSnapshot.typeName, from: last.data)
    }

    /// Appends the snapshot to the stream. Cost: one encode, one append.
    public func save(_ snapshot: UserSnapshot, stream: String) throws {
        let data = try EventJSON.encode(snapshot)
        _ = try store.append(ProposedEvent(type: UserSnapshot.typeName, data: data), to: stream, expectedVersion: .any)
    }
}
