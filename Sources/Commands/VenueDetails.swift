/// The venue tab of a details page. Every field but the name may be missing at the source.
public struct VenueDetails: Sendable, Hashable, Codable {
    /// The venue's name.
    public var name: String
    /// The postal address, on one line.
    public var address: String?
    /// The box office phone number.
    public var phone: String?
    /// The opening hours, as text.
    public var openHours: String?
    /// The venue's general rule, as text.
    public var generalRule: String?
    /// The venue's rule for children, as text.
    public var childRule: String?
    /// The venue's latitude in degrees, -90…90.
    public var latitude: Double?
    /// The venue's longitude in degrees, -180…180.
    public var longitude: Double?

    /// Makes a venue description.
    public init(
        name: String, address: String? = nil, phone: String? = nil, openHours: String? = nil,
        generalRule: String? = nil, childRule: String? = nil, latitude: Double? = nil, longitude: Double? = nil
    ) {
        self.name = name
        self.address = address
        self.phone = phone
        self.openHours = openHours
        self.generalRule = generalRule
        self.childRule = childRule
        self.latitude = latitude
        self.longitude = longitude
    }
}
