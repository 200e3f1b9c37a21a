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
}
