/// Where a search looks around: the user's detected location, or a place typed in.
///
/// JSON: `{"current":{"latitude":34.02,"longitude":-118.28}}` or `{"custom":{"text":"Los Angeles"}}`.
public enum SearchLocation: Sendable, Hashable, Codable {
    /// The location the device detected, in degrees.
    case current(latitude: Double, longitude: Double)
    /// A location the user typed in (an address, a city, a postcode).
    case custom(text: String)
}
