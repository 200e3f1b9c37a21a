import Commands
import EventLog
import Foundation
import Projections
import Testing

/// The marker an erasure appends to the user's stream, as the views read it: every view keyed by
/// the user forgets the user's documents (what a rebuild from the tombstones gives), the cached
/// details by listing are left to the rebuild, `history` says what it is, and anything of
/// another shape under the marker's type is no marker.
@Suite("Views: an erasure's marker")
struct ErasureMarkerTests {
    static let time = Date(timeIntervalSince1970: 1_796_000_000)

    static func recorded(_ type: String, _ data: Data, position: Int64, stream: String = "ada") -> RecordedEvent {
        RecordedEvent(position: position, streamID: stream, version: position, id: UUID(), type: type, data: data,
                      metadata: Data("{}".utf8), recordedAt: time, hash: "")
    }

    static func live(_ event: DomainEvent, position: Int64) throws -> RecordedEvent {
        let (type, data) = try event.encode()
        return recorded(type, data, position: position)
    }

    static func marker(through version: Int64, position: Int64) -> RecordedEvent {
        recorded(Erasure.markerType, Erasure.markerData(erasureEventID: UUID(), throughVersion: version), position: position)
    }

    @Test("a marker empties the user's favorites, recent searches and recently viewed; later events count again")
    func markerResetsUserViews() throws {
        let summary = ListingSummary(name: "Hamilton", venue: "Pantages", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")
        let details = ListingDetails(listingID: "L2", info: ListingInfo(name: "Wicked"))
        let before = [
            try Self.live(.favorited(Favorited(listingID: "L1", summary: summary)), position: 1),
            try Self.live(.searched(Searched(keyword: "jazz", location: .custom(text: "Los Angeles"))), position: 2),
            try Self.live(.detailsViewed(DetailsViewed(listingID: "L2", details: details)), position: 3),
        ]
        let marker = Self.marker(through: 3, position: 4)
        let after = try Self.live(.favorited(Favorited(listingID: "L3", summary: summary)), position: 5)
        let events = (before + [marker, after]).compactMap(ViewEvent.decode)
        #expect(events.count == 5)
        #expect(events[3].action == .erased(throughVersion: 3))

        #expect(Views.favorites.fold(events)[ViewKey.user("ada")]?.items.map(\.listingID) == ["L3"])
        #expect(Views.recentSearches.fold(events)[ViewKey.user("ada")] == nil)
        #expect(Views.recentlyViewed.fold(events)[ViewKey.user("ada")] == nil)
        #expect(Views.cachedDetails.key(for: events[3]) == nil, "the cached details are by listing: the rebuild after forget redoes them")
        // The views fold the marker as they fold the tombstones: the same documents.
        let tombstones = before.map { Self.recorded($0.type, Erasure.tombstone, position: $0.position) }
        let erased = (tombstones + [marker, after]).compactMap(ViewEvent.decode)
        #expect(Views.favorites.fold(events) == Views.favorites.fold(erased))
        #expect(History.summary(of: marker) == "erased: events 1 to 3 of this user were erased")
        #expect(History.summary(of: Self.marker(through: 1, position: 2)) == "erased: event 1 of this user was erased")
    }

    @Test("an event of the marker's type but another shape is no marker: no view reads it")
    func lookalikesAreIgnored() {
        let id = UUID().lowercaseString
        for data in [#"{"erasure":"\#(id)","throughVersion":3,"x":1}"#, #"{"erasure":"\#(id.uppercased())","throughVersion":3}"#,
                     #"{"throughVersion":3,"erasure":"\#(id)"}"#, #"{"erasure":"\#(id)","throughVersion":-3}"#,
                     #"{"erasure":"\#(id)","throughVersion":03}"#, String(decoding: Erasure.tombstone, as: UTF8.self)] {
            #expect(ViewEvent.decode(Self.recorded(Erasure.markerType, Data(data.utf8), position: 1)) == nil, "\(data)")
            #expect(Erasure.markerThroughVersion(Data(data.utf8)) == nil, "\(data)")
        }
        #expect(Erasure.markerThroughVersion(Data(#"{"erasure":"\#(id)","throughVersion":3}"#.utf8)) == 3)
    }
}
