/// The event info tab of a details page. Every field but the name may be missing at the source.
public struct ListingInfo: Sendable, Hashable, Codable {
    /// The listing's name.
    public var name: String
    /// The artists or teams taking part, in the source's order (may be empty).
    public var artistsOrTeams: [String]
    /// The venue's name.
    public var venue: String?
    /// The local date and time as the source gave it, e.g. `2026-12-05 19:30:00`.
    public var localDateTime: String?
    /// The category (segment), e.g. `Music`.
    public var category: String?
    /// The genres, e.g. `["Rock", "Pop"]` (may be empty).
    public var genres: [String]
    /// The price range, when the source gave one.
    public var priceRange: PriceRange?
    /// The ticket status, e.g. `onsale`, `offsale`, `cancelled`, `rescheduled`.
    public var ticketStatus: String?
    /// Where to buy tickets.
    public var ticketLink: String?
    /// The seat map image.
    public var seatMapLink: String?

    /// Makes the event info of a details page.
    public init(
        name: String, artistsOrTeams: [String] = [], venue: String? = nil, localDateTime: String? = nil,
        category: String? = nil, genres: [String] = [], priceRange: PriceRange? = nil,
        ticketStatus: String? = nil, ticketLink: String? = nil, seatMapLink: String? = nil
    ) {
        self.name = name
        self.artistsOrTeams = artistsOrTeams
        self.venue = venue
        self.localDateTime = localDateTime
        self.category = category
        self.genres = genres
        self.priceRange = priceRange
        self.ticketStatus = ticketStatus
        self.ticketLink = ticketLink
        self.seatMapLink = seatMapLink
    }

    private enum CodingKeys: String, CodingKey {
        case name, artistsOrTeams, venue, localDateTime, category, genres, priceRange, ticketStatus, ticketLink, seatMapLink
    }

    /// Reads the info tab; `artistsOrTeams` and `genres` may be left out for empty lists (the
    /// encoding, which the hash chain covers, still writes them).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        artistsOrTeams = try container.decodeIfPresent([String].self, forKey: .artistsOrTeams) ?? []
        venue = try container.decodeIfPresent(String.self, forKey: .venue)
        localDateTime = try container.decodeIfPresent(String.self, forKey: .localDateTime)
        category = try container.decodeIfPresent(String.self, forKey: .category)
        genres = try container.decodeIfPresent([String].self, forKey: .genres) ?? []
        priceRange = try container.decodeIfPresent(PriceRange.self, forKey: .priceRange)
        ticketStatus = try container.decodeIfPresent(String.self, forKey: .ticketStatus)
        ticketLink = try container.decodeIfPresent(String.self, forKey: .ticketLink)
        seatMapLink = try container.decodeIfPresent(String.self, forKey: .seatMapLink)
    }
}
