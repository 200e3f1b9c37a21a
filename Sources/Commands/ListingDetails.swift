/// The details a user saw when they opened a listing: what the four tabs of a details page show.
public struct ListingDetails: Sendable, Hashable, Codable {
    /// The listing these details belong to; must equal the id the command names.
    public var listingID: String
    /// The event info tab.
    public var info: ListingInfo
    /// The artists or teams with a music profile; nil when the source has no artist data
    /// (non-music listings: the apps show "no artist data").
    public var artists: [ArtistProfile]?
    /// The venue tab; nil when the venue lookup returned nothing.
    public var venue: VenueDetails?
    /// Up to ``maximumUpcomingEvents`` upcoming listings at the venue; empty shows "No upcoming events".
    public var upcomingEvents: [UpcomingListing]

    /// The most upcoming listings a details snapshot holds (the apps fetch the first 5).
    public static let maximumUpcomingEvents = 5

    /// Makes a details snapshot.
    public init(
        listingID: String, info: ListingInfo, artists: [ArtistProfile]? = nil,
        venue: VenueDetails? = nil, upcomingEvents: [UpcomingListing] = []
    ) {
        self.listingID = listingID
        self.info = info
        self.artists = artists
        self.venue = venue
        self.upcomingEvents = upcomingEvents
    }

    private enum CodingKeys: String, CodingKey {
        case listingID, info, artists, venue, upcomingEvents
    }

    /// Reads a details snapshot; `upcomingEvents` may be left out for an empty list (the
    /// encoding, which the hash chain covers, still writes it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        listingID = try container.decode(String.self, forKey: .listingID)
        info = try container.decode(ListingInfo.self, forKey: .info)
        artists = try container.decodeIfPresent([ArtistProfile].self, forKey: .artists)
        venue = try container.decodeIfPresent(VenueDetails.self, forKey: .venue)
        upcomingEvents = try container.decodeIfPresent([UpcomingListing].self, forKey: .upcomingEvents) ?? []
    }
}

extension ListingDetails {
    /// The details as `evtool view --details` and `POST /v1/users/{user}/views` take them: the
    /// details object itself, or a `DetailsViewed` payload as docs/reference/events.md shows it
    /// (`{"details": {…}, "listingID": …, "schemaVersion": 1}`), whose `listingID` must be the
    /// details' own.
    public struct Submitted: Sendable, Decodable {
        /// The details, from either form.
        public var details: ListingDetails

        private enum WrapperKeys: String, CodingKey {
            case details, listingID, schemaVersion
        }

        /// Reads either form: an object with a `details` member is a payload.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: WrapperKeys.self)
            guard container.contains(.details) else {
                details = try ListingDetails(from: decoder)
                return
            }
            if let version = try container.decodeIfPresent(Int.self, forKey: .schemaVersion), version != DetailsViewed.schemaVersion {
                throw DecodingError.dataCorruptedError(
                    forKey: .schemaVersion, in: container,
                    debugDescription: "must be \(DetailsViewed.schemaVersion), the DetailsViewed schema this release writes, not \(version)")
            }
            let listingID = try container.decode(String.self, forKey: .listingID)
            details = try container.decode(ListingDetails.self, forKey: .details)
            guard listingID == details.listingID else {
                throw DecodingError.dataCorruptedError(
                    forKey: .listingID, in: container,
                    debugDescription: "'\(listingID)' is not the details' own listingID '\(details.listingID)'")
            }
        }
    }
}
