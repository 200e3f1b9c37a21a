import Commands
import Foundation

/// Realistic, reproducible user activity: people search, open details, favorite and sometimes
/// unfavorite, with listing popularity following a Zipf law (a few listings get most views).
///
/// Pure: it only makes commands; running them is the caller's job.
package struct ActivityGenerator: Sendable {
    /// One simulated action.
    package struct Action: Sendable, Hashable {
        /// Who acts (see ``ActivityGenerator/userID(_:)``).
        package var userID: String
        /// What they do.
        package var command: UserCommand
    }

    /// How many users act.
    package let users: Int
    /// How many listings exist.
    package let listings: Int
    private var random: SplitMix64
    private let cumulative: [Double]
    /// What each simulated user has favorited, so unfavorites usually hit a real favorite.
    private var favorites: [Int: [String]] = [:]

    static let keywords = ["jazz", "Taylor Swift", "lakers", "Hamilton", "film festival", "comedy night", "USC Trojans",
                           "opera", "indie rock", "food fair", "ballet", "symphony", "NBA", "stand-up", "theatre"]
    static let venues = ["Hollywood Bowl", "Crypto.com Arena", "The Greek Theatre", "Walt Disney Concert Hall",
                         "SoFi Stadium", "Pantages Theatre", "The Wiltern", "Dodger Stadium"]
    static let categories: [SearchCategory] = [.music, .sports, .artsAndTheatre, .film, .miscellaneous]

    /// - Parameters:
    ///   - users: how many users act (ids `user-00001` …).
    ///   - listings: how many listings exist (ids `L000001` …).
    ///   - seed: the same seed gives the same actions.
    ///   - zipfExponent: how strongly popularity concentrates on the first listings.
    package init(users: Int, listings: Int, seed: UInt64, zipfExponent: Double = 1.07) {
        self.users = max(1, users)
        self.listings = max(1, listings)
        self.random = SplitMix64(seed: seed)
        var total = 0.0
        var cumulative: [Double] = []
        cumulative.reserveCapacity(self.listings)
        for rank in 1...self.listings {
            total += 1 / pow(Double(rank), zipfExponent)
            cumulative.append(total)
        }
        self.cumulative = cumulative.map { $0 / total }
    }

    /// The id of user number `index` (0-based).
    package static func userID(_ index: Int) -> String { "user-" + String(index + 1).leftPadded(to: 5) }
    /// The id of listing number `index` (0-based).
    package static func listingID(_ index: Int) -> String { "L" + String(index + 1).leftPadded(to: 6) }

    /// The next action.
    package mutating func next() -> Action {
        let user = Int.random(in: 0..<users, using: &random)
        let userID = Self.userID(user)
        let roll = Int.random(in: 0..<100, using: &random)
        switch roll {
        case 0..<40:
            return Action(userID: userID, command: .search(search()))
        case 40..<70:
            let listing = popularListing()
            return Action(userID: userID, command: .viewDetails(listingID: Self.listingID(listing), details: details(listing)))
        case 70..<88:
            let listing = popularListing()
            let id = Self.listingID(listing)
            if !(favorites[user]?.contains(id) ?? false) { favorites[user, default: []].append(id) }
            return Action(userID: userID, command: .favorite(listingID: id, summary: summary(listing)))
        default:
            if var mine = favorites[user], !mine.isEmpty {
                let id = mine.remove(at: Int.random(in: 0..<mine.count, using: &random))
                favorites[user] = mine
                return Action(userID: userID, command: .unfavorite(listingID: id))
            }
            return Action(userID: userID, command: .unfavorite(listingID: Self.listingID(popularListing())))
        }
    }

    /// A listing index drawn by popularity.
    mutating func popularListing() -> Int {
        let target = Double.random(in: 0..<1, using: &random)
        var low = 0, high = cumulative.count - 1
        while low < high {
            let middle = (low + high) / 2
            if cumulative[middle] < target { low = middle + 1 } else { high = middle }
        }
        return low
    }

    mutating func search() -> Searched {
        let keyword = Self.keywords[Int.random(in: 0..<Self.keywords.count, using: &random)]
        let category: SearchCategory = Bool.random(using: &random) ? .all : Self.categories[Int.random(in: 0..<Self.categories.count, using: &random)]
        let location: SearchLocation = Int.random(in: 0..<4, using: &random) == 0
            ? .custom(text: ["Los Angeles", "Pasadena", "Santa Monica", "90007"][Int.random(in: 0..<4, using: &random)])
            : .current(latitude: 34.0224, longitude: -118.2851)
        let found = (0..<Int.random(in: 0...5, using: &random)).map { _ in Self.listingID(popularListing()) }
        return Searched(keyword: keyword, category: category, distance: [5, 10, 10, 25, 50][Int.random(in: 0..<5, using: &random)],
                        units: Int.random(in: 0..<5, using: &random) == 0 ? .km : .miles, location: location,
                        results: SearchResults(count: found.count * 4, listingIDs: found))
    }

    /// The list-row summary of a listing (the same every time for one listing).
    package static func summary(_ listing: Int) -> ListingSummary {
        ListingSummary(name: name(listing), venue: venues[listing % venues.count],
                       localDateTime: "2026-12-\(String(listing % 28 + 1).leftPadded(to: 2)) 19:30:00",
                       category: categories[listing % categories.count].rawValue)
    }

    func summary(_ listing: Int) -> ListingSummary { Self.summary(listing) }

    static let titles = ["Jazz", "Taylor Swift", "Lakers", "Hamilton", "Film Festival", "Comedy", "USC Trojans",
                         "Opera", "Indie Rock", "Food Fair", "Ballet", "Symphony", "NBA", "Stand-Up", "Theatre"]

    static func name(_ listing: Int) -> String {
        let kinds = ["Live", "Night", "Festival", "Tour", "Showcase", "Gala"]
        return "\(titles[listing % titles.count]) \(kinds[listing % kinds.count]) #\(listing + 1)"
    }

    /// The details a user sees for a listing (the price moves a little between fetches).
    mutating func details(_ listing: Int) -> ListingDetails {
        let id = Self.listingID(listing)
        let category = Self.categories[listing % Self.categories.count]
        let isMusic = category == .music
        let low = Double(20 + listing % 50 + Int.random(in: 0...5, using: &random))
        return ListingDetails(
            listingID: id,
            info: ListingInfo(
                name: Self.name(listing), artistsOrTeams: isMusic ? ["Artist \(listing % 97)"] : ["Home Team", "Away Team"],
                venue: Self.venues[listing % Self.venues.count], localDateTime: "2026-12-\(String(listing % 28 + 1).leftPadded(to: 2)) 19:30:00",
                category: category.rawValue, genres: [category.rawValue], priceRange: PriceRange(minimum: low, maximum: low * 3, currency: "USD"),
                ticketStatus: "onsale", ticketLink: "https://tickets.example/e/\(id)", seatMapLink: "https://maps.example/s/\(id).png"),
            artists: isMusic ? [ArtistProfile(name: "Artist \(listing % 97)", followers: 1_000 * (listing % 500), popularity: listing % 101,
                                              profileLink: "https://music.example/a/\(listing % 97)")] : nil,
            venue: nil,
            upcomingEvents: (0..<min(5, listing % 6)).map { UpcomingListing(name: "Upcoming \($0)", artist: nil, localDateTime: "2027-01-0\($0 + 1) 20:00:00", type: category.rawValue, link: nil) })
    }
}

extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
