import Commands
import EventLog
import Foundation
import Projections
import Testing

/// ``Projection/reads(type:)``: a fold of one view (time travel, the snapshots' reads) skips
/// the events whose type the view says it does not read, without decoding them. Skipping must
/// never change an answer: for every type a view declines, no event of that type (any
/// schema version, a tombstone, the erasure's marker, a type no one knows) has a key in it.
@Suite("Views: the event types each view reads")
struct ReadsTypeTests {
    static let summary = ListingSummary(name: "Hamilton", venue: "Pantages", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")

    /// One recorded event of every kind a user's stream can hold.
    static func samples() throws -> [RecordedEvent] {
        let domain: [DomainEvent] = [
            .favorited(Favorited(listingID: "L1", summary: summary)),
            .unfavorited(Unfavorited(listingID: "L1")),
            .searched(Searched(keyword: "jazz", location: .custom(text: "Los Angeles"))),
            .detailsViewed(DetailsViewed(listingID: "L2", details: ListingDetails(listingID: "L2", info: ListingInfo(name: "Wicked")))),
        ]
        var events: [RecordedEvent] = []
        for (index, event) in domain.enumerated() {
            let (type, data) = try event.encode()
            events.append(ErasureMarkerTests.recorded(type, data, position: Int64(index + 1)))
            // The same type erased: the tombstone every view folds as nothing.
            events.append(ErasureMarkerTests.recorded(type, Erasure.tombstone, position: Int64(index + 10)))
        }
        events.append(ErasureMarkerTests.marker(through: 3, position: 20))
        events.append(ErasureMarkerTests.recorded("UserStateSnapshot", Data("{}".utf8), position: 21))
        events.append(ErasureMarkerTests.recorded("SomethingNew", Data(#"{"listingID":"L1"}"#.utf8), position: 22))
        return events
    }

    @Test("a type a view declines has no event with a key in that view; every type with a key is read")
    func declinedTypesNeverMatter() throws {
        let events = try Self.samples()
        var declined = 0
        for view in Views.all {
            for recorded in events {
                let decoded = ViewEvent.decode(recorded)
                let key = decoded.flatMap { view.key(for: $0) }
                if !view.reads(type: recorded.type) {
                    declined += 1
                    #expect(key == nil, "\(view.name) declines \(recorded.type) but gives its event the key \(key ?? "")")
                }
            }
        }
        #expect(declined > 0, "some view declines some type (else the filter does nothing)")
        #expect(Views.favorites.reads(type: Favorited.typeName) && Views.favorites.reads(type: Unfavorited.typeName))
        #expect(Views.favorites.reads(type: Erasure.markerType) && !Views.favorites.reads(type: Searched.typeName))
        #expect(Views.recentSearches.reads(type: Searched.typeName) && !Views.recentSearches.reads(type: DetailsViewed.typeName))
        #expect(Views.recentlyViewed.reads(type: DetailsViewed.typeName) && !Views.recentlyViewed.reads(type: Favorited.typeName))
        #expect(Views.cachedDetails.reads(type: DetailsViewed.typeName) && !Views.cachedDetails.reads(type: Erasure.markerType))
    }

    @Test("each view as of every position of a mixed stream, through the cache and without it, equals its full fold")
    func timeTravelWithTheFilterEqualsTheFold() throws {
        let fixture = try SQLiteFixture()
        defer { fixture.remove() }
        let store = fixture.store
        var proposed: [ProposedEvent] = []
        for index in 0..<120 {
            let event: DomainEvent
            switch index % 5 {
            case 0: event = .favorited(Favorited(listingID: "L\(index % 7)", summary: Self.summary))
            case 1: event = .unfavorited(Unfavorited(listingID: "L\((index + 3) % 7)"))
            case 2: event = .searched(Searched(keyword: "k\(index % 4)", location: .custom(text: "Los Angeles")))
            case 3: event = .detailsViewed(DetailsViewed(listingID: "L\(index % 3)", details: ListingDetails(listingID: "L\(index % 3)", info: ListingInfo(name: "N\(index)"))))
            default: event = .favorited(Favorited(listingID: "M\(index)", summary: Self.summary))
            }
            let (type, data) = try event.encode()
            proposed.append(ProposedEvent(type: type, data: data))
        }
        let stream = UserStream.id(for: "ada")
        _ = try store.append(proposed, to: stream, expectedVersion: .noStream)
        let all = try store.read(stream: stream, from: 1, direction: .forwards, limit: 1_000)
        let cache = TimeTravelCache(capacity: 16, step: 4)
        for position in stride(from: Int64(1), through: all.last!.position, by: 3) {
            let events = all.filter { $0.position <= position }.compactMap(ViewEvent.decode)
            let favorites = Views.favorites.fold(events)[ViewKey.user("ada")]
            #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(position), in: store) == favorites)
            #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(position), in: store, cache: cache) == favorites)
            let searches = Views.recentSearches.fold(events)[ViewKey.user("ada")]
            #expect(try TimeTravel.document(Views.recentSearches, key: "ada", asOf: .position(position), in: store, cache: cache) == searches)
            let viewed = Views.recentlyViewed.fold(events)[ViewKey.user("ada")]
            #expect(try TimeTravel.document(Views.recentlyViewed, key: "ada", asOf: .position(position), in: store, cache: cache) == viewed)
        }
    }
}
