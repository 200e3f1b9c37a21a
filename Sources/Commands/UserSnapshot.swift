import EventLog
import Foundation

/// A user's decision state at a version of their stream, as a snapshot store keeps it.
///
/// JSON: `{"check":"…","decider":1,"favorites":["A","B"],"lastEventHash":"…","recentEventIDs":["…"],"schemaVersion":2,"version":10000}`.
///
/// A snapshot never changes a decision: it says which rules made it (`decider`, against
/// ``UserDecider/stateVersion``), which event it ends with (`lastEventHash`, the chain hash of
/// the event at `version`, which covers the stream id and every event before it; the runner
/// compares it, and the event's id, with the stream), and `check` is a SHA-256 over all of it,
/// so a document changed or cut short in the store is refused when it is read.
public struct UserSnapshot: Sendable, Hashable, Codable {
    /// The schema version this release writes.
    public static let schemaVersion = 2
    /// The type name of snapshot events in an ``EventStoreSnapshots`` store.
    public static let typeName = "UserStateSnapshot"

    /// The stream version the state reflects.
    public var version: Int64
    /// The current favorites, sorted.
    public var favorites: [String]
    /// The ids of the stream's last events, oldest first.
    public var recentEventIDs: [UUID]
    /// The chain hash of the event at ``version`` ("" when it was not known: such a snapshot
    /// is checked by the event's id alone).
    public var lastEventHash: String
    /// The ``UserDecider/stateVersion`` of the rules that folded the state.
    public var decider: Int

    /// Makes a snapshot of a loaded state.
    public init(_ loaded: LoadedUser) {
        version = loaded.version
        favorites = loaded.state.favorites.sorted()
        recentEventIDs = loaded.recentEventIDs
        lastEventHash = loaded.lastEventHash
        decider = UserDecider.stateVersion
    }

    /// The loaded state this snapshot holds.
    public var loaded: LoadedUser {
        LoadedUser(version: version, state: UserState(favorites: Set(favorites)), recentEventIDs: recentEventIDs,
                   snapshotVersion: version, lastEventHash: lastEventHash)
    }

    /// The SHA-256 (hex) over every field, in a fixed order.
    var check: String {
        var text = "evtool user snapshot\n\(Self.schemaVersion)\n\(decider)\n\(version)\n\(lastEventHash)\n\(favorites.count)\n"
        for favorite in favorites { text += "\(favorite.utf8.count):\(favorite)\n" }
        for id in recentEventIDs { text += id.lowercaseString + "\n" }
        return SHA256Hasher.digest(Data(text.utf8)).hexString
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, version, favorites, recentEventIDs, lastEventHash, decider, check
    }

    /// Decodes a snapshot.
    /// - Throws: ``DomainEventError`` for another schema version, rules of another
    ///   ``UserDecider/stateVersion``, or a `check` that does not match the fields.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let schema = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        guard schema == Self.schemaVersion else {
            throw DomainEventError.malformed(type: Self.typeName, reason: "schemaVersion \(schema) snapshots are not used")
        }
        version = try container.decode(Int64.self, forKey: .version)
        favorites = try container.decode([String].self, forKey: .favorites)
        recentEventIDs = try container.decode([UUID].self, forKey: .recentEventIDs)
        lastEventHash = try container.decode(String.self, forKey: .lastEventHash)
        decider = try container.decode(Int.self, forKey: .decider)
        guard decider == UserDecider.stateVersion else {
            throw DomainEventError.malformed(type: Self.typeName, reason: "made by rules \(decider), these are \(UserDecider.stateVersion)")
        }
        guard version >= 1, !recentEventIDs.isEmpty, try container.decode(String.self, forKey: .check) == check else {
            throw DomainEventError.malformed(type: Self.typeName, reason: "the snapshot does not match its check")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(version, forKey: .version)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(recentEventIDs, forKey: .recentEventIDs)
        try container.encode(lastEventHash, forKey: .lastEventHash)
        try container.encode(decider, forKey: .decider)
        try container.encode(check, forKey: .check)
    }
}
