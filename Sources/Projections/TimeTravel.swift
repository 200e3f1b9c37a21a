import Commands
import EventLog
import Foundation

/// Views as they were at a past point of the log, computed from the log itself with the same
/// pure projections (no stored view is involved, so the answer does not depend on when the
/// views were last rebuilt).
public enum TimeTravel {
    /// A view's document for `key` as of `point`.
    ///
    /// - Parameter key: for views keyed by user, the user's stream id as recorded; otherwise the
    ///   listing id (``Projection/documentKey(_:)`` gives the document's key).
    /// Cost: for views keyed by user as of a position, the nearest snapshot at or before it
    /// (``ViewSnapshots``, when the store keeps them) and at most a thousand of the user's
    /// events; without one, one read of that user's stream up to its version at the position
    /// (as of a time: up to the time);
    /// for other views one streaming pass over the log up to `point`, in bounded memory.
    public static func document<P: Projection>(_ projection: P, key: String, asOf point: AsOf, in store: any EventStore) throws -> P.Document? {
        var document: P.Document?
        let documentKey = projection.documentKey(key)
        let apply = { (recorded: RecordedEvent) in
            guard point.includes(position: recorded.position, recordedAt: recorded.recordedAt), projection.reads(type: recorded.type),
                  let event = ViewEvent.decode(recorded), projection.key(for: event) == documentKey else { return }
            projection.evolve(&document, with: event)
        }
        try refuseArchived(projection, key: key, in: store)
        if projection.isKeyedByUser {
            // From the nearest view snapshot at or before the position, when one fits (ViewSnapshots).
            // As of a position, the stream is read only up to its version there (found through
            // the stream's index), never past it.
            var through = Int64.max
            if case .position(let limit) = point {
                if let snapshots = store as? any EventStore & SnapshotDocuments {
                    let fromSnapshot = try ViewSnapshots.document(projection, key: key, asOf: limit, in: snapshots)
                    if fromSnapshot.found { return fromSnapshot.document }
                    through = fromSnapshot.version
                } else {
                    through = try StreamSearch.firstVersion(of: UserStream.id(for: key), afterPosition: limit, in: store) - 1
                }
            }
            var next: Int64 = 1
            while next <= through {
                let batch = try store.read(stream: UserStream.id(for: key), from: next, direction: .forwards, limit: Int(min(1_000, through - next + 1)))
                for recorded in batch { apply(recorded) }
                guard let last = batch.last, batch.count == 1_000 else { break }
                if case .position(let limit) = point, last.position > limit { break }
                next = last.version + 1
            }
        } else {
            var cursor: Int64 = 0
            while true {
                let batch = try store.readAll(after: cursor, limit: 1_000)
                for recorded in batch { apply(recorded) }
                guard let last = batch.last else { break }
                if case .position(let limit) = point, last.position >= limit { break }
                cursor = last.position
            }
        }
        return document
    }
}

extension TimeTravel {
    /// After an archive the log no longer starts at position 1: a view as of a point is folded
    /// from what is kept only when none of the events it needs is archived; otherwise this
    /// throws ``EventStoreError/invalidInput(_:)`` naming the user (or the view) and the boundary.
    static func refuseArchived<P: Projection>(_ projection: P, key: String, in store: any EventStore) throws {
        guard let archiving = store as? any ArchivingStore, let latest = try archiving.latestArchive() else { return }
        if projection.isKeyedByUser {
            if let head = try archiving.archivedHead(of: UserStream.id(for: key)) {
                throw EventStoreError.invalidInput("the first \(head.version) events of user '\(key)' are archived (below position \(latest.position)): '\(projection.name)' as of a point needs them; read the view now, or the archive file")
            }
        } else {
            throw EventStoreError.invalidInput("the events below position \(latest.position) are archived: '\(projection.name)' as of a point folds the log from its first event and needs them; read the view now, or the archive file")
        }
    }
}
