import Foundation

/// A user's decision state at a version of their stream, as a snapshot store keeps it.
///
/// JSON: `{"favorites":["A","B"],"recentEventIDs":["…"],"schemaVersion":1,"version":10000}`.
public struct UserSnapshot: Sendable, Hashable, Codable {
    /// The schema version this release writes.
    public static let schemaVersion = 1
    /// The type name of snapshot events in an ``EventStoreSnapshots`` store.
    public static let typeName = "UserStateSnapshot"

    /// The stream version the state reflects.
    public var version: Int64
    /// The current favorites, sorted.
    public var favorites: [String]
    /// The ids of the stream's last events, oldest first.
    public var recentEventIDs: [UUID]

    /// Makes a snapshot of a loaded state.
    public init(_ loaded: LoadedUser) {
        version = loaded.version
        favorites = loaded.state.favorites.sorted()
        recentEventIDs = loaded.recentEventIDs
    }

    /// The loaded state this snapshot holds.
    public var loaded: LoadedUser {
        LoadedUser(version: version, state: UserState(favorites: Set(favorites)), recentEventIDs: recentEventIDs, snapshotVersion: version)
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, version, favorites, recentEventIDs
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        version = try container.decode(Int64.self, forKey: .version)
        favorites = try container.decode([String].self, forKey: .favorites)
        recentEventIDs = try container.decode([UUID].self, forKey: .recentEventIDs)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(version, forKey: .version)
        try container.encode(favorites, forKey: .favorites)
        try container.encode(recentEventIDs, forKey: .recentEventIDs)
    }
}
