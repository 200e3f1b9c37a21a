/// What the first release wrote for a search, kept only so old logs replay.
///
/// Version 1 had no units (distances were always miles, in `distanceMiles`), a flat
/// location (`customLocation` text, or `latitude`/`longitude` for the current location),
/// no results, and often no `schemaVersion` member at all:
///
/// ```json
/// {"category":"Music","distanceMiles":15,"keyword":"jazz","latitude":34.0224,"longitude":-118.2851}
/// {"category":"All","customLocation":"Los Angeles","distanceMiles":10,"keyword":"Lakers","schemaVersion":1}
/// ```
public struct SearchedV1: Sendable, Hashable, Decodable {
    /// What the user typed.
    public var keyword: String
    /// The category.
    public var category: SearchCategory
    /// The distance, in miles.
    public var distanceMiles: Double
    /// The typed location, when the user chose a custom one.
    public var customLocation: String?
    /// The detected latitude, when the user searched around their current location.
    public var latitude: Double?
    /// The detected longitude, when the user searched around their current location.
    public var longitude: Double?

    /// Converts to the current schema: the distance keeps its value in miles, the location
    /// becomes custom text when there was any, else the current coordinates.
    /// - Throws: ``DomainEventError/malformed(type:reason:)`` when neither a custom location
    ///   nor both coordinates are present.
    public func upcast() throws -> Searched {
        let location: SearchLocation
        if let customLocation {
            location = .custom(text: customLocation)
        } else if let latitude, let longitude {
            location = .current(latitude: latitude, longitude: longitude)
        } else {
            throw DomainEventError.malformed(
                type: Searched.typeName, reason: "version 1 search has neither customLocation nor latitude and longitude")
        }
        return Searched(keyword: keyword, category: category, distance: distanceMiles, units: .miles, location: location)
    }
}
