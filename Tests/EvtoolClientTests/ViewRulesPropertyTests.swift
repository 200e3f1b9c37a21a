@testable import EvtoolClient
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// The client's optimistic fold (``ViewRules``) and the server's projections agree: on random
/// action sequences, the server's views after the first k actions with the rest folded on top
/// on the device equal the server's views after all of them (times aside: a pending action
/// shows the device's time until the server's answer replaces it).
struct ViewRulesPropertyTests {
    /// A small seeded generator (SplitMix64), so a failure names a sequence that can be replayed.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    /// Actions drawn from small pools, so that they collide: the same listing favorited twice,
    /// removed when it is not a favorite, searches equal once normalized (case, spaces, a place
    /// within 100 m), more distinct searches and views than the lists keep.
    static func action(_ random: inout Generator) -> Action {
        let listings = (1...6).map { "L\($0)" } + (1...24).map { "V\($0)" }
        switch random.below(10) {
        case 0, 1, 2:
            let listing = "L\(random.below(6) + 1)"
            return .favorite(listingID: listing, summary: summary(random.pick(["Hamilton", "Wicked", "Cats"]) + " " + listing))
        case 3, 4:
            return .unfavorite(listingID: "L\(random.below(6) + 1)")
        case 5, 6:
            let keyword = random.pick(["Hamilton", " hamilton ", "HAMILTON", "jazz  night", "Jazz Night", "k\(random.below(25))"])
            let place: SearchPlace = random.pick([.named("Los Angeles"), .named("los  angeles"), .named("NYC"),
                                                  .here(latitude: 34.0522, longitude: -118.2437), .here(latitude: 34.05221, longitude: -118.24372),
                                                  .here(latitude: 34.06, longitude: -118.2437)])
            let results: [String]? = random.below(2) == 0 ? nil : Array(listings.prefix(random.below(4)))
            return .search(Search(keyword: keyword, category: random.pick(["All", "Music", "Arts & Theatre"]), distance: random.pick([10, 25]),
                                  units: random.pick(["miles", "km"]), place: place, resultListingIDs: results))
        default:
            let listing = random.pick(listings)
            return .viewDetails(ListingDetails(listingID: listing, name: "Name of \(listing) \(random.below(3))"))
        }
    }

    /// Sends an action through the server's own routes (the client's request body).
    static func send(_ action: Action, to api: API) throws {
        let (method, path): (String, String)
        switch action {
        case .search: (method, path) = ("POST", "/v1/users/ada/searches")
        case let .favorite(listing, _): (method, path) = ("PUT", "/v1/users/ada/favorites/\(listing)")
        case let .unfavorite(listing): (method, path) = ("DELETE", "/v1/users/ada/favorites/\(listing)")
        case .viewDetails: (method, path) = ("POST", "/v1/users/ada/views")
        }
        let body = ServerDocuments.body(of: action).map { Array($0) } ?? []
        let response = api.respond(to: HTTPRequest(method: method, target: path, headers: body.isEmpty ? [:] : ["Content-Type": "application/json"], body: body))
        guard response.status == 200 || response.status == 201 else { throw LocalPort.Failure("\(method) \(path): \(response.status) \(response.text)") }
    }

    /// The server's three views, as the client reads them, and the version they are at.
    static func views(_ api: API) -> (favorites: [Favorite], searches: [RecentSearch], viewed: [RecentlyViewed]) {
        func get(_ view: String) -> Data { Data(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/\(view)")).body) }
        return (ServerDocuments.favorites(get("favorites")), ServerDocuments.recentSearches(get("recent-searches")), ServerDocuments.recentlyViewed(get("recently-viewed")))
    }

    /// What the views show, times aside.
    static func shown(_ views: (favorites: [Favorite], searches: [RecentSearch], viewed: [RecentlyViewed])) -> [String] {
        views.favorites.map { "favorite \($0.listingID) \($0.summary)" }
            + views.searches.map { "search \($0.keyword)|\($0.category)|\($0.distance)|\($0.units)|\($0.place)|\(String(describing: $0.resultCount))" }
            + views.viewed.map { "viewed \($0.listingID) \($0.name)" }
    }

    @Test("server views after k actions + the rest folded on the device == server views after all", arguments: 1...40)
    func foldAgreesWithProjections(seed: Int) throws {
        var random = Generator(state: UInt64(seed))
        let actions = (0..<(1 + random.below(60))).map { _ in Self.action(&random) }
        let split = random.below(actions.count + 1)
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        let api = API(application: Application(store: file.store), tokens: nil)
        for action in actions[..<split] { try Self.send(action, to: api) }
        var folded = Self.views(api)
        let now = Date()
        for action in actions[split...] {
            ViewRules.fold(&folded.favorites, action, at: now)
            ViewRules.fold(&folded.searches, action, at: now)
            ViewRules.fold(&folded.viewed, action, at: now)
        }
        for action in actions[split...] { try Self.send(action, to: api) }
        let server = Self.views(api)
        #expect(Self.shown(folded) == Self.shown(server), "seed \(seed): \(actions.count) actions, split at \(split)")
        #expect(!server.favorites.isEmpty || !server.searches.isEmpty || !server.viewed.isEmpty || actions.allSatisfy { if case .unfavorite = $0 { true } else { false } })
    }
}
