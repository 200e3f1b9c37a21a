import EventLog
import Foundation

/// Keeps users' decision snapshots in the store beside the views (``SnapshotDocuments``): one
/// document per user, the latest, under the kind `user-state.v` + ``UserDecider/stateVersion``
/// (so rules that fold differently never read another version's states).
///
/// What ``Application`` and the command line give their runner, so a new process (or an app
/// server that has not seen the user yet) reads a long stream from its last snapshot. Safe to
/// share between threads.
public final class DocumentSnapshots: UserSnapshotStore {
    /// The kind under which this release's snapshots are kept.
    public static let kind = "user-state.v\(UserDecider.stateVersion)"
    /// The store that keeps the documents.
    public let store: any SnapshotDocuments

    /// Makes a snapshot store over `store`.
    public init(store: any SnapshotDocuments) {
        self.store = store
    }

    /// The stream's snapshot. Cost: one indexed lookup, one decode.
    /// - Throws: ``DomainEventError`` for a document that is not a snapshot of these rules
    ///   (the runner then reads the stream whole); the store's errors.
    public func latestSnapshot(stream: String) throws -> UserSnapshot? {
        guard let document = try store.snapshotDocument(kind: Self.kind, slot: 0, stream: stream) else { return nil }
        return try EventJSON.decode(UserSnapshot.self, type: UserSnapshot.typeName, from: document)
    }

    /// Replaces the stream's snapshot. Cost: one encode, one upsert.
    public func save(_ snapshot: UserSnapshot, stream: String) throws {
        try store.saveSnapshotDocument(try EventJSON.encode(snapshot), kind: Self.kind, slot: 0, stream: stream)
    }
}
