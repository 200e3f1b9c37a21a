/// A user opened a listing's details page. Type name `DetailsViewed`, schema version 1.
///
/// It keeps the details as the user saw them, so an auditor can tell what was shown and
/// a projection can serve them again without a new fetch.
public struct DetailsViewed: Sendable, Hashable, Codable {
    /// The stable type name stored with the event.
    public static let typeName = "DetailsViewed"
    /// The schema version this release writes.
    public static let schemaVersion = 1

    /// The listing's id.
    public var listingID: String
    /// The details fetched for it.
    public var details: ListingDetails

    /// Makes a details view.
    public init(listingID: String, details: ListingDetails) {
        self.listingID = listingID
        self.details = details
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, listingID, details
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        listingID = try container.decode(String.self, forKey: .listingID)
        details = try container.decode(ListingDetails.self, forKey: .details)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(listingID, forKey: .listingID)
        try container.encode(details, forKey: .details)
    }
}
