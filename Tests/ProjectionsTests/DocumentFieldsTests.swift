import Commands
import EventLog
import Foundation
import Projections
import Testing

/// The views declare their fields (``DocumentFields``) and one encoder and decoder walk them;
/// the documents stored by the hand-written codecs before (these were written by evtool at
/// b895ee4 into an SQLite store's `view_documents`) read back and encode to the same bytes.
@Suite("View documents: declared fields, the stored bytes unchanged")
struct DocumentFieldsTests {
    static let stored: [(view: String, json: String)] = [
        ("cached-details", #"{"details":{"info":{"artistsOrTeams":["x"],"genres":["a","b"],"localDateTime":"2026-12-05 19:30:00","name":"Ω ünicode 🎵","venue":"Pantages Theatre"},"listingID":"L\"8","upcomingEvents":[]},"fetchedAt":"2026-12-01T11:56:13.880366Z","fetchedBy":"ada","views":1}"#),
        ("cached-details", #"{"details":{"info":{"artistsOrTeams":["x"],"genres":["a","b"],"localDateTime":"2026-12-05 19:30:00","name":"Ω ünicode 🎵","venue":"Pantages Theatre"},"listingID":"L7","upcomingEvents":[]},"fetchedAt":"2026-12-01T11:56:13.592248Z","fetchedBy":"bob","views":2}"#),
        ("favorites", #"{"items":[{"addedAt":"2026-12-01T11:56:12.866270Z","listingID":"L000042","summary":{"category":"Arts & Theatre","localDateTime":"2026-12-05 19:30:00","name":"Hamilton \"the musical\"","venue":"Pantages\\Theatre"}},{"addedAt":"2026-12-01T11:56:13.066972Z","listingID":"L7","summary":{"category":"Music","localDateTime":"D","name":"Ω ünicode 🎵","venue":"V"}}]}"#),
        ("recent-searches", #"{"items":[{"category":"All","distance":2.5,"keyword":"Ünïcode  ","location":{"custom":{"text":"Los Angeles, \"CA\""}},"resultCount":0,"searchedAt":"2026-12-01T11:56:18.156985Z","units":"km"},{"category":"All","distance":1e-06,"keyword":"zero","location":{"current":{"latitude":0,"longitude":179.99999}},"searchedAt":"2026-12-01T11:56:12.633267Z","units":"miles"},{"category":"Music","distance":10,"keyword":"jazz \"live\"","location":{"current":{"latitude":34.0224,"longitude":-118.2851}},"resultCount":12,"searchedAt":"2026-12-01T11:56:12.142880Z","units":"miles"}]}"#),
        ("recent-searches", #"{"items":[{"category":"All","distance":12345678.5,"keyword":"big","location":{"custom":{"text":"\\u0001 ok"}},"searchedAt":"2026-12-01T11:56:18.465235Z","units":"miles"}]}"#),
        ("recently-viewed", #"{"items":[{"listingID":"L\"8","name":"Ω ünicode 🎵","viewedAt":"2026-12-01T11:56:13.880366Z"},{"listingID":"L7","name":"Ω ünicode 🎵","viewedAt":"2026-12-01T11:56:13.293414Z"}]}"#),
        ("recently-viewed", #"{"items":[{"listingID":"L7","name":"Ω ünicode 🎵","viewedAt":"2026-12-01T11:56:13.592248Z"}]}"#),
    ]

    /// Decodes `json` as `P.Document` and encodes it again.
    func roundTrip<P: Projection>(_: P, _ json: String) throws -> (document: P.Document, bytes: String) {
        let document = try P.Document.decode(Data(json.utf8))
        return (document, String(decoding: document.jsonData, as: UTF8.self))
    }

    @Test("every document written by the hand-written codecs decodes and encodes to the same bytes")
    func storedBytes() throws {
        #expect(Set(Self.stored.map(\.view)) == Set(Views.all.map(\.name)))
        for (view, json) in Self.stored {
            let encoded: String
            switch view {
            case Views.favorites.name: encoded = try roundTrip(Views.favorites, json).bytes
            case Views.recentSearches.name: encoded = try roundTrip(Views.recentSearches, json).bytes
            case Views.recentlyViewed.name: encoded = try roundTrip(Views.recentlyViewed, json).bytes
            case Views.cachedDetails.name: encoded = try roundTrip(Views.cachedDetails, json).bytes
            default: Issue.record("no view \(view)"); continue
            }
            #expect(encoded == json, "\(view)")
        }
    }

    @Test("the decoded values are the stored ones, and derived fields are computed")
    func decodedValues() throws {
        let favorites = try roundTrip(Views.favorites, Self.stored.first { $0.view == "favorites" }!.json).document
        #expect(favorites.items.map(\.listingID) == ["L000042", "L7"])
        #expect(favorites.items[0].summary == ListingSummary(name: #"Hamilton "the musical""#, venue: #"Pantages\Theatre"#,
                                                             localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre"))
        #expect(favorites.items[1].addedAt == EventLog.Timestamp.parse("2026-12-01T11:56:13.066972Z"))
        let searches = try roundTrip(Views.recentSearches, Self.stored.first { $0.view == "recent-searches" }!.json).document
        let first = searches.items[0]
        #expect(first.keyword == "Ünïcode  " && first.category == .all && first.distance == 2.5 && first.units == .km)
        #expect(first.location == .custom(text: #"Los Angeles, "CA""#) && first.resultCount == 0)
        #expect(first.identity == RecentSearchesProjection.identity(keyword: "Ünïcode  ", category: .all, distance: 2.5, units: .km,
                                                                    location: .custom(text: #"Los Angeles, "CA""#)))
        #expect(searches.items[1].location == .current(latitude: 0, longitude: 179.99999) && searches.items[1].resultCount == nil)
        let details = try roundTrip(Views.cachedDetails, Self.stored.first { $0.view == "cached-details" }!.json).document
        let listing = try details.decodedDetails().listingID
        #expect(details.fetchedBy == "ada" && details.views == 1 && listing == #"L"8"#)
    }

    @Test("a stored document that lacks a field is refused, naming the field")
    func missingFields() throws {
        let cases: [(json: String, reason: String, decode: (Data) throws -> Void)] = [
            (#"{"item":[]}"#, "a stored favorites document has no usable 'items'", { _ = try FavoritesProjection.Document.decode($0) }),
            (#"{"items":[{"listingID":"L7","summary":{"category":"M","localDateTime":"D","name":"N","venue":"V"}}]}"#,
             "a stored favorites document has no usable 'items'", { _ = try FavoritesProjection.Document.decode($0) }),
            (#"{"items":[{"category":"All","distance":1,"keyword":"k","location":{"moon":{}},"searchedAt":"2026-12-01T11:56:18.465235Z","units":"km"}]}"#,
             "a stored recent searches document has no usable 'location'", { _ = try RecentSearchesProjection.Document.decode($0) }),
            (#"{"items":[{"listingID":"L7","name":"N","viewedAt":"yesterday"}]}"#,
             "a stored recently viewed document has no usable 'items'", { _ = try RecentlyViewedProjection.Document.decode($0) }),
            (#"{"details":{},"fetchedAt":"2026-12-01T11:56:18.465235Z","fetchedBy":"ada"}"#,
             "a stored cached details document has no usable 'views'", { _ = try CachedDetailsProjection.Document.decode($0) }),
            (#"[]"#, "a stored view document is not a JSON object", { _ = try FavoritesProjection.Document.decode($0) }),
        ]
        for (json, reason, decode) in cases {
            #expect(throws: ViewDocumentError.self, "\(json)") { try decode(Data(json.utf8)) }
            do { try decode(Data(json.utf8)) } catch let error as ViewDocumentError { #expect(error.reason == reason, "\(json)") }
        }
    }
}
