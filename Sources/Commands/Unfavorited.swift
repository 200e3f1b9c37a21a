/// A user removed a listing from their favorites. Type name `Unfavorited`, schema version 1.
public struct Unfavorited: Sendable, Hashable, Codable {
    /// The stable type name stored with the event.
    public static let typeName = "Unfavorited"
    /// The schema version this release writes.
    public static let schemaVersion = 1

    /// The listing's id.
    public var listingID: String

    /// Makes a removal.
    public init(listingID: String) {
        self.listingID = listingID
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, listingID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        listingID = try container.decode(String.self, forKey: .listingID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(listingID, forKey: .listingID)
    }
}
