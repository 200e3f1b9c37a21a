import Commands
import EventLog
import Foundation
import Projections
import Testing

@Suite("Time travel and history")
struct TimeTravelTests {
    @Test("a view as of a position or a time is what it was then")
    func asOf() throws {
        let fixture = try SQLiteFixture(); defer { fixture.remove() }
        let runner = CommandRunner(store: fixture.store)
        let summary = ListingSummary(name: "Opera Gala", venue: "Walt Disney Concert Hall", localDateTime: "2027-03-01 19:00:00", category: "Music")
        let context = CommandContext(userID: "ada", source: "test", occurredAt: Date())
        _ = try runner.handle(.favorite(listingID: "L1", summary: summary), context: context)
        _ = try runner.handle(.favorite(listingID: "L2", summary: summary), context: context)
        let midway = try fixture.store.headPosition()
        Thread.sleep(forTimeInterval: 0.01)
        let midwayTime = Date()
        Thread.sleep(forTimeInterval: 0.01)
        _ = try runner.handle(.unfavorite(listingID: "L1"), context: context)
        _ = try runner.handle(.viewDetails(listingID: "L2", details: ProjectionRulesTests.details("L2")), context: CommandContext(userID: "bob", source: "test", occurredAt: Date()))

        #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(midway), in: fixture.store)?.items.map(\.listingID) == ["L1", "L2"])
        #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .time(midwayTime), in: fixture.store)?.items.map(\.listingID) == ["L1", "L2"])
        #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(try fixture.store.headPosition()), in: fixture.store)?.items.map(\.listingID) == ["L2"])
        #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(0), in: fixture.store) == nil)
        #expect(try TimeTravel.document(Views.cachedDetails, key: "L2", asOf: .position(midway), in: fixture.store) == nil)
        #expect(try TimeTravel.document(Views.cachedDetails, key: "L2", asOf: .time(Date()), in: fixture.store)?.views == 1)
    }

    @Test("history: every action in order, filtered by type, time and position")
    func history() throws {
        let fixture = try SQLiteFixture(); defer { fixture.remove() }
        let runner = CommandRunner(store: fixture.store)
        let summary = ListingSummary(name: "Opera Gala", venue: "Hall", localDateTime: "2027-03-01 19:00:00", category: "Music")
        let context = CommandContext(userID: "ada", source: "ios-app/4.2", occurredAt: Date(timeIntervalSince1970: 1_796_000_000), requestID: "r-1")
        _ = try runner.handle(.search(Searched(keyword: "opera", location: .custom(text: "Los Angeles"))), context: context)
        var second = context
        second.requestID = "r-2"
        _ = try runner.handle(.favorite(listingID: "L1", summary: summary), context: second)
        let entries = try History.entries(of: "ada", in: fixture.store)
        #expect(entries.map(\.type) == ["Searched", "Favorited"])
        #expect(entries.map(\.summary) == ["searched \"opera\" in All within 10 miles near \"Los Angeles\"", "favorited \"Opera Gala\" (L1)"])
        #expect(entries.first?.source == "ios-app/4.2")
        #expect(entries.first?.requestID == "r-1")
        #expect(entries.first?.occurredAt == Date(timeIntervalSince1970: 1_796_000_000))
        #expect(try History.entries(of: "ada", in: fixture.store, filter: .init(types: ["Favorited"])).map(\.type) == ["Favorited"])
        #expect(try History.entries(of: "ada", in: fixture.store, filter: .init(asOf: .position(entries[0].position))).count == 1)
        #expect(try History.entries(of: "ada", in: fixture.store, filter: .init(since: Date().addingTimeInterval(60))).isEmpty)
        #expect(try History.entries(of: "nobody", in: fixture.store).isEmpty)
    }
}
