/// A user searched for listings. Type name `Searched`, schema version 2.
///
/// Version 1 (see ``SearchedV1``) is upcast when read, so logs written by the first release replay.
public struct Searched: Sendable, Hashable, Codable {
    /// The stable type name stored with the event.
    public static let typeName = "Searched"
    /// The schema version this release writes.
    public static let schemaVersion = 2
    /// The largest distance a new search may use, in its units: beyond about half the Earth's
    /// circumference a radius finds nothing more.
    public static let maximumDistance = 20_000.0
    /// The distance a search uses when the user does not pick one.
    public static let defaultDistance = 10.0

    /// What the user typed; not empty or only spaces.
    public var keyword: String
    /// The category the search was narrowed to.
    public var category: SearchCategory
    /// How far from the location to look, in ``units``; positive and finite.
    public var distance: Double
    /// The unit of ``distance``.
    public var units: DistanceUnit
    /// Where the search looked around.
    public var location: SearchLocation
    /// What came back, when the client reported it.
    public var results: SearchResults?

    /// Makes a search.
    public init(
        keyword: String, category: SearchCategory = .all, distance: Double = Searched.defaultDistance,
        units: DistanceUnit = .miles, location: SearchLocation, results: SearchResults? = nil
    ) {
        self.keyword = keyword
        self.category = category
        self.distance = distance
        self.units = units
        self.location = location
        self.results = results
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, keyword, category, distance, units, location, results
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let version = try SchemaVersion.read(from: container, key: .schemaVersion, type: Self.typeName, current: Self.schemaVersion)
        if version == 1 {
            self = try SearchedV1(from: decoder).upcast()
            return
        }
        keyword = try container.decode(String.self, forKey: .keyword)
        category = try container.decode(SearchCategory.self, forKey: .category)
        distance = try container.decode(Double.self, forKey: .distance)
        units = try container.decode(DistanceUnit.self, forKey: .units)
        location = try container.decode(SearchLocation.self, forKey: .location)
        results = try container.decodeIfPresent(SearchResults.self, forKey: .results)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(keyword, forKey: .keyword)
        try container.encode(category, forKey: .category)
        try container.encode(distance, forKey: .distance)
        try container.encode(units, forKey: .units)
        try container.encode(location, forKey: .location)
        try container.encodeIfPresent(results, forKey: .results)
    }
}
