/// A user added a listing to their favorites. Type name `Favorited`, schema version 1.
public struct Favorited: Sendable, Hashable, Codable {
    /// The stable type name stored with the event.
    public static let typeName = "Favorited"
    /// The schema version this release writes.
    public static let schemaVersion = 1

    /// The listing's id.
    public var listingID: String
    /// What the favorites list shows for it.
    public var summary: ListingSummary

    /// Makes a favorite.
    public init(listingID: String, summary: ListingSummary) {
        self.listingID = listingID
        self.summary = summary
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, listingID, summary
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        listingID = try container.decode(String.self, forKey: .listingID)
        summary = try container.decode(ListingSummary.self, forKey: .summary)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(listingID, forKey: .listingID)
        try container.encode(summary, forKey: .summary)
    }
}
