import Commands
import EventLog
import Foundation

/// Sample commands and events the tests share.
enum Fixtures {
    static let losAngeles = SearchLocation.current(latitude: 34.0224, longitude: -118.2851)

    static func search(_ keyword: String = "Taylor Swift", location: SearchLocation = losAngeles) -> Searched {
        Searched(keyword: keyword, category: .music, distance: 10, units: .miles, location: location,
                 results: SearchResults(count: 2, listingIDs: ["vvG1zZ9pBk", "Z7r9jZ1AdJ"]))
    }

    static func summary(_ name: String = "Taylor Swift | The Eras Tour") -> ListingSummary {
        ListingSummary(name: name, venue: "SoFi Stadium", localDateTime: "2026-12-05 19:30:00", category: "Music")
    }

    static func details(_ listingID: String = "vvG1zZ9pBk") -> ListingDetails {
        ListingDetails(
            listingID: listingID,
            info: ListingInfo(
                name: "Taylor Swift | The Eras Tour", artistsOrTeams: ["Taylor Swift"], venue: "SoFi Stadium",
                localDateTime: "2026-12-05 19:30:00", category: "Music", genres: ["Pop"],
                priceRange: PriceRange(minimum: 49.5, maximum: 449.5, currency: "USD"), ticketStatus: "onsale",
                ticketLink: "https://www.ticketmaster.com/event/vvG1zZ9pBk",
                seatMapLink: "https://maps.ticketmaster.com/maps/geometry/3/event/vvG1zZ9pBk/staticImage"),
            artists: [ArtistProfile(
                name: "Taylor Swift", followers: 91_234_567, popularity: 100,
                profileLink: "https://open.spotify.com/artist/06HL4z0CvFAxyc27GXpf02",
                albumCovers: ["https://i.scdn.co/image/ab67616d0000b273e787cffec20aa2a396a61647"])],
            venue: VenueDetails(
                name: "SoFi Stadium", address: "1001 Stadium Dr, Inglewood, CA 90301", phone: "(424) 541-9100",
                openHours: "Box office opens two hours before the show", generalRule: "No outside food or drink",
                childRule: "Children 2 and over need a ticket", latitude: 33.9535, longitude: -118.3392),
            upcomingEvents: [UpcomingListing(
                name: "Rams vs 49ers", artist: "Los Angeles Rams", localDateTime: "2026-12-13 13:05:00",
                type: "Sports", link: "https://www.ticketmaster.com/event/Z7r9jZ1AdJ")])
    }

    static func favorite(_ listingID: String) -> UserCommand {
        .favorite(listingID: listingID, summary: summary())
    }

    static func favorited(_ listingID: String) -> DomainEvent {
        .favorited(Favorited(listingID: listingID, summary: summary()))
    }

    static func context(user: String = "user-1", requestID: String? = nil) -> CommandContext {
        CommandContext(
            userID: user, source: "test-server", occurredAt: Timestamp.date(microseconds: 1_796_000_000_000_000),
            requestID: requestID)
    }
}

// MARK: - Given / when / then

/// The state after the given events, folded with the decider's `evolve`.
func given(_ events: [DomainEvent]) -> UserState {
    events.reduce(UserDecider.initialState, UserDecider.evolve)
}

/// The error a command is rejected with, given some events; nil when it is accepted.
func rejection(given events: [DomainEvent] = [], when command: UserCommand) -> CommandError? {
    do {
        _ = try UserDecider.decide(command, state: given(events))
        return nil
    } catch let error as CommandError {
        return error
    } catch {
        return nil
    }
}
