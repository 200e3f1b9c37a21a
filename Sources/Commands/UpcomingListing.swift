/// A listing coming up at the same venue, as the upcoming tab shows it.
public struct UpcomingListing: Sendable, Hashable, Codable {
    /// The listing's name.
    public var name: String
    /// The headline artist.
    public var artist: String?
    /// The local date and time as the source gave it.
    public var localDateTime: String?
    /// The kind of listing, e.g. `Concert`.
    public var type: String?
    /// The listing's page.
    public var link: String?

    /// Makes an upcoming listing.
    public init(name: String, artist: String? = nil, localDateTime: String? = nil, type: String? = nil, link: String? = nil) {
        self.name = name
        self.artist = artist
        self.localDateTime = localDateTime
        self.type = type
        self.link = link
    }
}
