import Commands
import EventLog
import Foundation
import Projections
import Simulation
import Testing

/// Given events, when folded by a projection, then this view: no database involved.
@Suite("Projections: the rules of each view")
struct ProjectionRulesTests {
    static let here = SearchLocation.current(latitude: 34.02241, longitude: -118.28512)
    var position: Int64 = 0

    mutating func event(_ user: String, _ event: DomainEvent) -> ViewEvent {
        position += 1
        let (type, data) = try! event.encode()
        return ViewEvent(position: position, userID: user, recordedAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(position)),
                         action: ViewEvent.fastAction(type: type, data: data)!)
    }

    func summary(_ name: String) -> ListingSummary {
        ListingSummary(name: name, venue: "Hollywood Bowl", localDateTime: "2026-12-05 19:30:00", category: "Music")
    }

    @Test("recent searches: a distance of -0 is the same search as 0, before and after the list is stored")
    func negativeZeroDistance() throws {
        let projection = RecentSearchesProjection()
        let search = ViewEvent.Search(keyword: "jazz", category: .all, distance: -0.0, units: .km, location: .custom(text: "LA"), resultCount: nil)
        func searched(at position: Int64) -> ViewEvent {
            ViewEvent(position: position, userID: "u", recordedAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(position)), action: .searched(search))
        }
        var inMemory: RecentSearchesProjection.Document?
        projection.evolve(&inMemory, with: searched(at: 1))
        var stored: RecentSearchesProjection.Document? = try RecentSearchesProjection.Document.decode(inMemory!.jsonData)
        projection.evolve(&inMemory, with: searched(at: 2))
        projection.evolve(&stored, with: searched(at: 2))
        #expect(inMemory?.items.count == 1)
        #expect(stored?.jsonData == inMemory?.jsonData)
    }

    @Test("favorites: in the order added, a repeat changes nothing, a removal removes, empty removes the key")
    mutating func favorites() {
        let events = [
            event("u1", .favorited(Favorited(listingID: "A", summary: summary("Alpha")))),
            event("u1", .favorited(Favorited(listingID: "B", summary: summary("Beta")))),
            event("u1", .favorited(Favorited(listingID: "A", summary: summary("Alpha again")))),
            event("u2", .favorited(Favorited(listingID: "C", summary: summary("Gamma")))),
            event("u1", .unfavorited(Unfavorited(listingID: "Z"))),
            event("u1", .favorited(Favorited(listingID: "C", summary: summary("Gamma")))),
            event("u1", .unfavorited(Unfavorited(listingID: "B"))),
            event("u2", .unfavorited(Unfavorited(listingID: "C"))),
        ]
        let view = FavoritesProjection().fold(events)
        #expect(view["u1"]?.items.map(\.listingID) == ["A", "C"])
        #expect(view["u1"]?.items.first?.summary.name == "Alpha")
        #expect(view["u1"]?.items.first?.addedAt == events[0].recordedAt)
        #expect(view["u2"] == nil)
    }

    @Test("recent searches: newest first, a repeat moves to the top, normalized, at most 20")
    mutating func recentSearches() {
        var events = [
            event("u1", .searched(Searched(keyword: "jazz", location: Self.here))),
            event("u1", .searched(Searched(keyword: "opera", category: .artsAndTheatre, location: .custom(text: "Pasadena")))),
            event("u1", .searched(Searched(keyword: "  JAZZ ", location: .current(latitude: 34.02239, longitude: -118.28508)))),
            event("u1", .searched(Searched(keyword: "jazz", distance: 25, location: Self.here))),
            event("u1", .searched(Searched(keyword: "opera", category: .artsAndTheatre, location: .custom(text: "pasadena ")))),
        ]
        var view = RecentSearchesProjection().fold(events)
        #expect(view["u1"]?.items.map(\.keyword) == ["opera", "jazz", "  JAZZ "])
        #expect(view["u1"]?.items.map(\.distance) == [10, 25, 10])
        for index in 0..<30 {
            events.append(event("u1", .searched(Searched(keyword: "k\(index)", location: Self.here))))
        }
        view = RecentSearchesProjection().fold(events)
        #expect(view["u1"]?.items.count == 20)
        #expect(view["u1"]?.items.first?.keyword == "k29")
        #expect(view["u1"]?.items.last?.keyword == "k10")
    }

    @Test("recently viewed: newest first, no duplicates, at most 20")
    mutating func recentlyViewed() {
        var events: [ViewEvent] = []
        for index in [1, 2, 3, 2, 1] {
            events.append(event("u1", .detailsViewed(DetailsViewed(listingID: "L\(index)", details: Self.details("L\(index)")))))
        }
        var view = RecentlyViewedProjection().fold(events)
        #expect(view["u1"]?.items.map(\.listingID) == ["L1", "L2", "L3"])
        for index in 10..<40 {
            events.append(event("u1", .detailsViewed(DetailsViewed(listingID: "L\(index)", details: Self.details("L\(index)")))))
        }
        view = RecentlyViewedProjection().fold(events)
        #expect(view["u1"]?.items.count == 20)
        #expect(view["u1"]?.items.first?.listingID == "L39")
    }

    @Test("recently viewed, the no-duplicates rule: a re-view moves the listing to the top with its new time and name, never two entries, the cap kept, also when full and when read back from storage")
    func recentlyViewedNoDuplicates() throws {
        let projection = RecentlyViewedProjection()
        let capacity = RecentlyViewedProjection.capacity
        func viewed(_ listing: String, name: String, at position: Int64) -> ViewEvent {
            ViewEvent(position: position, userID: "u", recordedAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(position)),
                      action: .detailsViewed(listingID: listing, name: name, details: Data("{}".utf8)))
        }
        // Full, then each listing re-viewed from the oldest end: the list keeps its twenty,
        // the re-viewed one on top with its new name and time, the others in order below it.
        var document: RecentlyViewedProjection.Document?
        var position: Int64 = 0
        for index in 0..<capacity {
            position += 1
            projection.evolve(&document, with: viewed("L\(index)", name: "first \(index)", at: position))
        }
        #expect(document?.items.map(\.listingID) == (0..<capacity).reversed().map { "L\($0)" })
        position += 1
        projection.evolve(&document, with: viewed("L0", name: "renamed", at: position))
        #expect(document?.items.map(\.listingID) == ["L0"] + (1..<capacity).reversed().map { "L\($0)" })
        #expect(document?.items.first?.name == "renamed")
        #expect(document?.items.first?.viewedAt == Date(timeIntervalSince1970: 1_796_000_000 + Double(position)))
        position += 1
        projection.evolve(&document, with: viewed("L0", name: "again", at: position))
        #expect(document?.items.count == capacity && document?.items.filter { $0.listingID == "L0" }.count == 1)
        #expect(document?.items.first?.name == "again")

        // Property: seeded views over 30 listings, against a model list; the document evolved
        // in memory and the one read back from its stored JSON after every event agree with it.
        var random = SplitMix64(seed: 21)
        var model: [(listing: String, name: String, position: Int64)] = []
        var inMemory: RecentlyViewedProjection.Document?
        var stored: RecentlyViewedProjection.Document?
        var reViews = 0
        for step in 0..<500 {
            position += 1
            let listing = "P\(Int.random(in: 0..<30, using: &random))"
            let name = "name \(step)"
            if model.contains(where: { $0.listing == listing }) { reViews += 1 }
            model.removeAll { $0.listing == listing }
            model.insert((listing, name, position), at: 0)
            if model.count > capacity { model.removeLast(model.count - capacity) }
            let event = viewed(listing, name: name, at: position)
            projection.evolve(&inMemory, with: event)
            if let text = stored?.jsonData { stored = try RecentlyViewedProjection.Document.decode(text) }
            projection.evolve(&stored, with: event)
            let items = try #require(inMemory?.items)
            // The first step that disagrees is reported, not every one after it.
            guard items.map(\.listingID) == model.map(\.listing), items.map(\.name) == model.map(\.name),
                  items.map(\.viewedAt) == model.map({ Date(timeIntervalSince1970: 1_796_000_000 + Double($0.position)) }),
                  Set(items.map(\.listingID)).count == items.count, stored?.jsonData == inMemory?.jsonData else {
                Issue.record("step \(step), viewing \(listing): the list is \(items.map(\.listingID)), the model \(model.map(\.listing)); read back from storage it \(stored?.jsonData == inMemory?.jsonData ? "agrees" : "differs")")
                break
            }
        }
        #expect(reViews > 100, "the sequence re-viewed only \(reViews) times")
    }

    @Test("cached details: the latest fetch by anyone, with when, by whom and how many views")
    mutating func cachedDetails() throws {
        var older = Self.details("L1")
        older.info.ticketStatus = "onsale"
        var newer = older
        newer.info.ticketStatus = "soldout"
        let events = [
            event("u1", .detailsViewed(DetailsViewed(listingID: "L1", details: older))),
            event("u2", .detailsViewed(DetailsViewed(listingID: "L2", details: Self.details("L2")))),
            event("u2", .detailsViewed(DetailsViewed(listingID: "L1", details: newer))),
        ]
        let view = CachedDetailsProjection().fold(events)
        #expect(try view["L1"]?.decodedDetails().info.ticketStatus == "soldout")
        #expect(view["L1"]?.views == 2)
        #expect(view["L1"]?.fetchedBy == "u2")
        #expect(view["L1"]?.fetchedAt == events[2].recordedAt)
        #expect(view["L2"]?.views == 1)
    }

    static func details(_ id: String) -> ListingDetails {
        ListingDetails(listingID: id, info: ListingInfo(name: "Show \(id)", artistsOrTeams: ["Band"], venue: "Bowl", localDateTime: nil,
                                                         category: "Music", genres: [], priceRange: nil, ticketStatus: nil,
                                                         ticketLink: nil, seatMapLink: nil),
                       artists: nil, venue: nil, upcomingEvents: [])
    }
}
