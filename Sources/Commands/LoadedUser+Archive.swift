import EventLog
import Foundation

// A user's decision state across an archive boundary (`evtool archive`, docs/explanation/audit.md
// "Archives"): the store keeps each stream's state as of the boundary beside its archived
// head, and the runner carries on from it instead of the archived events.

extension LoadedUser {
    /// Folds one recorded event into the state, exactly as the runner does when it loads a stream.
    /// - Throws: ``DomainEventError`` for an event this release cannot read.
    public mutating func fold(_ recorded: RecordedEvent) throws {
        state = try UserDecider.evolve(state, recorded: recorded)
        remember(recorded.id)
        version = recorded.version
        endsWithTombstone = Erasure.isTombstone(recorded)
        lastEventHash = recorded.hash
    }

    /// The state as the store keeps it at an archive boundary (a ``UserSnapshot`` document).
    public func archivedStateDocument() throws -> Data {
        try EventJSON.encode(UserSnapshot(self))
    }

    /// The state the store kept for `stream` at its archive boundary, nil when none of the
    /// stream's events is archived (or the store archives nothing).
    /// - Throws: ``EventStoreError/corrupt(_:)`` when the stream's events are archived and the
    ///   kept state is missing, unreadable by these rules, or not of the archived head.
    public static func archived(stream: String, in store: any EventStore) throws -> LoadedUser? {
        guard let archiving = store as? any ArchivingStore, let kept = try archiving.archivedState(of: stream) else { return nil }
        guard let document = kept.state else {
            throw EventStoreError.corrupt("the first \(kept.head.version) events of stream '\(stream)' are archived, and the store keeps no decision state for them")
        }
        let snapshot: UserSnapshot
        do {
            snapshot = try EventJSON.decode(UserSnapshot.self, type: UserSnapshot.typeName, from: document)
        } catch {
            throw EventStoreError.corrupt("the decision state kept for the archived events of stream '\(stream)' cannot be read by this release: \(error)")
        }
        guard snapshot.version == kept.head.version, snapshot.lastEventHash == kept.head.hash.hexString else {
            throw EventStoreError.corrupt("the decision state kept for the archived events of stream '\(stream)' is not of its archived head (version \(kept.head.version))")
        }
        var loaded = snapshot.loaded
        loaded.snapshotVersion = 0
        return loaded
    }
}
