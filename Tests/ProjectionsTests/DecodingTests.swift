import Commands
import EventLog
import Foundation
import Projections
import Simulation
import Testing

/// The views' fast decoder must read exactly what the domain's Codable decoder reads.
@Suite("Projections: fast decoding agrees with the domain decoder")
struct DecodingTests {
    @Test("property: for simulated events of every type, the fast path equals the Codable path", arguments: [1, 2, 3])
    func fastEqualsSlow(seed: UInt64) throws {
        var generator = ActivityGenerator(users: 30, listings: 300, seed: seed)
        var checked: [String: Int] = [:]
        for _ in 0..<2_000 {
            let event: DomainEvent
            switch generator.next().command {
            case .search(let search): event = .searched(search)
            case let .favorite(listing, summary): event = .favorited(Favorited(listingID: listing, summary: summary))
            case .unfavorite(let listing): event = .unfavorited(Unfavorited(listingID: listing))
            case let .viewDetails(listing, details): event = .detailsViewed(DetailsViewed(listingID: listing, details: details))
            }
            let (type, data) = try event.encode()
            let fast = try #require(ViewEvent.fastAction(type: type, data: data), "fast path refused \(type)")
            #expect(fast == ViewEvent.slowAction(type: type, data: data))
            checked[type, default: 0] += 1
        }
        #expect(checked.count == 4)
    }

    @Test("hand-written payloads: escapes, odd spacing and unicode read the same both ways")
    func awkwardPayloads() {
        let payloads: [(String, String)] = [
            ("Searched", #"{ "schemaVersion" : 2, "keyword":"caf\u00e9 \"live\" 🎷","category":"Arts & Theatre","distance":2.5,"units":"km","location":{"custom":{"text":"Tel Aviv \/ יפו"}} }"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"jazz","category":"All","distance":1e1,"units":"miles","location":{"current":{"latitude":-33.8688,"longitude":151.2093}},"results":{"count":0,"listingIDs":[]}}"#),
            ("Favorited", #"{"listingID":"L\"1","schemaVersion":1,"summary":{"category":"Music","localDateTime":"","name":"Na\nme","venue":"V"}}"#),
            ("Unfavorited", #"{"listingID":"L1","schemaVersion":1}"#),
        ]
        for (type, json) in payloads {
            let fast = ViewEvent.fastAction(type: type, data: Data(json.utf8))
            #expect(fast != nil, "\(json)")
            #expect(fast == ViewEvent.slowAction(type: type, data: Data(json.utf8)), "\(json)")
        }
    }

    @Test("older schema versions and malformed payloads: the fast path declines, the slow path decides")
    func declines() {
        let version1 = #"{"category":"Music","distanceMiles":15,"keyword":"jazz","latitude":34.0224,"longitude":-118.2851}"#
        #expect(ViewEvent.fastAction(type: "Searched", data: Data(version1.utf8)) == nil)
        guard case .searched(let upcast)? = ViewEvent.slowAction(type: "Searched", data: Data(version1.utf8)) else {
            Issue.record("the v1 search was not upcast")
            return
        }
        #expect(upcast.distance == 15 && upcast.units == .miles)
        for (type, json) in [("Favorited", #"{"listingID":"L1","schemaVersion":1}"#), ("Searched", "[]"), ("Unfavorited", "{"), ("Other", "{}")] {
            #expect(ViewEvent.fastAction(type: type, data: Data(json.utf8)) == nil)
            #expect(ViewEvent.slowAction(type: type, data: Data(json.utf8)) == nil)
        }
    }

    @Test("property: strings with quotes, backslashes and multi-byte text at every offset are skipped and read exactly")
    func awkwardStringsAtEveryOffset() throws {
        var random = SplitMix64(seed: 11)
        let alphabet: [String] = ["a", "Z", " ", "\"", "\\", "/", "{", "}", "[", "]", ",", ":", "é", "🎷", "\n", "\u{1}", "\\\""]
        func text(_ length: Int) -> String { (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined() }
        func json(_ value: String) throws -> String { String(decoding: try JSONSerialization.data(withJSONObject: value, options: .fragmentsAllowed), as: UTF8.self) }
        for length in 0..<40 {
            for _ in 0..<10 {
                let (name, venue, details, listing) = (text(length), text(length / 2), text(length + 3), text(length % 9 + 1))
                // Favorited: each string is read from the bytes, escapes undone.
                let favorite = #"{"listingID":\#(try json(listing)),"schemaVersion":1,"summary":{"category":"Music","localDateTime":\#(try json(details)),"name":\#(try json(name)),"venue":\#(try json(venue))}}"#
                let fast = try #require(ViewEvent.fastAction(type: "Favorited", data: Data(favorite.utf8)), "\(favorite)")
                #expect(fast == .favorited(listingID: listing, summary: ListingSummary(name: name, venue: venue, localDateTime: details, category: "Music")))
                #expect(fast == ViewEvent.slowAction(type: "Favorited", data: Data(favorite.utf8)))
                // DetailsViewed: the whole details object is skipped to find what follows, and kept byte for byte.
                let inner = #"{"info":{"artistsOrTeams":[\#(try json(details)),"x"],"category":"Music","genres":[],"name":\#(try json(name)),"venue":\#(try json(venue))},"listingID":\#(try json(listing)),"upcomingEvents":[{"name":\#(try json(venue)),"localDateTime":"2027-01-01 20:00:00","type":"Music"}]}"#
                let viewed = #"{"details":\#(inner),"listingID":\#(try json(listing)),"schemaVersion":1}"#
                #expect(ViewEvent.fastAction(type: "DetailsViewed", data: Data(viewed.utf8)) == .detailsViewed(listingID: listing, name: name, details: Data(inner.utf8)), "\(viewed)")
            }
        }
    }

    @Test("payloads that decoders could read differently are left to the Codable path: repeated or escaped names, infinite numbers, bad escapes")
    func ambiguousPayloadsDecline() {
        let payloads: [(String, String)] = [
            ("Unfavorited", #"{"schemaVersion":1,"listingID":"A","listingID":"B"}"#),
            ("Unfavorited", #"{"schemaVersion":1,"schemaVersion":2,"listingID":"A"}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","keyword":"z","category":"All","distance":5,"units":"km","location":{"custom":{"text":"LA"}}}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","category":"All","distance":5,"units":"km","location":{"custom":{"text":"LA","text":"SF"}}}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","category":"All","distance":1e400,"units":"km","location":{"custom":{"text":"LA"}}}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","category":"All","distance":5,"units":"km","location":{"current":{"latitude":1e999,"longitude":2}}}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","category":"All","distance":5,"units":"km","location":{"custom":{"text":"LA"}},"results":{"count":1,"listingIDs":["\ud800"]}}"#),
            ("Searched", #"{"schemaVersion":2,"keyword":"k","category":"All","distance":5,"units":"km","location":{"custom":{"text":"LA"}},"re\u0073ults":{"count":"x"}}"#),
            ("Favorited", #"{"listingID":"L1","schemaVersion":1,"summary":{"category":"Music","localDateTime":"","name":"A","name":"B","venue":"V"}}"#),
        ]
        for (type, json) in payloads {
            #expect(ViewEvent.fastAction(type: type, data: Data(json.utf8)) == nil, "\(json)")
        }
        // Escaped listing ids that do unescape are still read by the fast path, as the slow one reads them.
        let escaped = #"{"schemaVersion":2,"keyword":"k","category":"All","distance":5,"units":"km","location":{"custom":{"text":"LA"}},"results":{"count":1,"listingIDs":["L\u0031"]}}"#
        #expect(ViewEvent.fastAction(type: "Searched", data: Data(escaped.utf8)) != nil)
        #expect(ViewEvent.fastAction(type: "Searched", data: Data(escaped.utf8)) == ViewEvent.slowAction(type: "Searched", data: Data(escaped.utf8)))
    }

    @Test("documents read back what they wrote")
    func documentsRoundTrip() throws {
        let fixture = try SQLiteFixture(); defer { fixture.remove() }
        try recordActivity(500, users: 6, seed: 8, into: fixture.store)
        var events: [ViewEvent] = []
        try fixture.store.forEachBatch { events += $0.compactMap(ViewEvent.decode) }
        for (_, document) in Views.favorites.fold(events) { #expect(try FavoritesProjection.Document.decode(document.jsonData) == document) }
        for (_, document) in Views.recentSearches.fold(events) { #expect(try RecentSearchesProjection.Document.decode(document.jsonData) == document) }
        for (_, document) in Views.recentlyViewed.fold(events) { #expect(try RecentlyViewedProjection.Document.decode(document.jsonData) == document) }
        for (_, document) in Views.cachedDetails.fold(events) { #expect(try CachedDetailsProjection.Document.decode(document.jsonData) == document) }
    }
}
