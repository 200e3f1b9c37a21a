import Commands
import EventLog
import Foundation
import JSONKit
import Testing

@Suite("Event JSON: stable type names, sorted keys, schema versions, upcasting")
struct EventJSONTests {
    static let allEvents: [DomainEvent] = [
        .searched(Fixtures.search()),
        .searched(Searched(keyword: "Lakers", category: .sports, distance: 25.5, units: .km, location: .custom(text: "Los Angeles"))),
        Fixtures.favorited("vvG1zZ9pBk"),
        .unfavorited(Unfavorited(listingID: "vvG1zZ9pBk")),
        .detailsViewed(DetailsViewed(listingID: "vvG1zZ9pBk", details: Fixtures.details())),
        .detailsViewed(DetailsViewed(listingID: "k7", details: ListingDetails(listingID: "k7", info: ListingInfo(name: "Hamilton")))),
    ]

    @Test("every event reads back equal to what was written, under its stable type name")
    func roundTrip() throws {
        for event in Self.allEvents {
            let (type, data) = try event.encode()
            #expect(type == event.typeName)
            #expect(try DomainEvent.decode(type: type, data: data) == event)
            #expect(JSONSyntax.problem(in: data) == nil)
        }
        #expect(DomainEvent.typeNames == ["Searched", "Favorited", "Unfavorited", "DetailsViewed"])
    }

    @Test("payloads are compact JSON with sorted keys and the schema version")
    func exactJSON() throws {
        let unfavorited = try DomainEvent.unfavorited(Unfavorited(listingID: "A")).encode()
        #expect(String(decoding: unfavorited.data, as: UTF8.self) == #"{"listingID":"A","schemaVersion":1}"#)

        let search = Searched(keyword: "jazz", category: .artsAndTheatre, location: .custom(text: "Chicago"))
        let searched = try DomainEvent.searched(search).encode()
        #expect(String(decoding: searched.data, as: UTF8.self) ==
            #"{"category":"Arts & Theatre","distance":10,"keyword":"jazz","location":{"custom":{"text":"Chicago"}},"schemaVersion":2,"units":"miles"}"#)

        let here = try DomainEvent.searched(Searched(keyword: "x", location: .current(latitude: 34.5, longitude: -118.25))).encode()
        #expect(String(decoding: here.data, as: UTF8.self).contains(#""location":{"current":{"latitude":34.5,"longitude":-118.25}}"#))

        let details = try DomainEvent.detailsViewed(DetailsViewed(listingID: "vvG1zZ9pBk", details: Fixtures.details())).encode()
        let text = String(decoding: details.data, as: UTF8.self)
        #expect(text.contains(#""ticketLink":"https://www.ticketmaster.com/event/vvG1zZ9pBk""#), "links keep their slashes")
        #expect(text.hasSuffix(#""listingID":"vvG1zZ9pBk","schemaVersion":1}"#))
    }

    @Test("missing optional data is left out, not written as null")
    func optionalsOmitted() throws {
        let details = ListingDetails(listingID: "k7", info: ListingInfo(name: "Hamilton"))
        let data = try DomainEvent.detailsViewed(DetailsViewed(listingID: "k7", details: details)).encode().data
        #expect(String(decoding: data, as: UTF8.self) ==
            #"{"details":{"info":{"artistsOrTeams":[],"genres":[],"name":"Hamilton"},"listingID":"k7","upcomingEvents":[]},"listingID":"k7","schemaVersion":1}"#)
    }

    @Test("an unknown type, a newer schema and a malformed payload are reported as such")
    func badInput() {
        #expect(throws: DomainEventError.unknownType("Rated")) {
            try DomainEvent.decode(type: "Rated", data: Data("{}".utf8))
        }
        #expect(throws: DomainEventError.newerSchema(type: "Favorited", found: 2, supported: 1)) {
            try DomainEvent.decode(type: "Favorited", data: Data(#"{"schemaVersion":2,"listingID":"A"}"#.utf8))
        }
        #expect(throws: DomainEventError.newerSchema(type: "Searched", found: 3, supported: 2)) {
            try DomainEvent.decode(type: "Searched", data: Data(#"{"schemaVersion":3}"#.utf8))
        }
        #expect(throws: DomainEventError.malformed(type: "Unfavorited", reason: "listingID is missing")) {
            try DomainEvent.decode(type: "Unfavorited", data: Data(#"{"schemaVersion":1}"#.utf8))
        }
        #expect(throws: DomainEventError.malformed(type: "Searched", reason: "units is missing")) {
            try DomainEvent.decode(type: "Searched", data: Data(
                #"{"schemaVersion":2,"keyword":"k","category":"All","distance":1,"location":{"custom":{"text":"x"}}}"#.utf8))
        }
        #expect(throws: DomainEventError.self) {
            try DomainEvent.decode(type: "Searched", data: Data(
                #"{"schemaVersion":2,"keyword":"k","category":"Jazz","distance":1,"units":"miles","location":{"custom":{"text":"x"}}}"#.utf8))
        }
    }
}

@Suite("Recorded favorites: the scan of the bytes and the decoder read the same")
struct RecordedFavoriteReadingTests {
    static func recorded(_ type: String, _ json: String) -> RecordedEvent {
        RecordedEvent(position: 1, streamID: "user-1", version: 1, id: UUID(), type: type, data: Data(json.utf8),
                      metadata: Data("{}".utf8), recordedAt: Date(timeIntervalSince1970: 1_796_000_000), hash: "")
    }

    /// What a read gave: the event, or the error it threw.
    static func outcome(_ read: () throws -> DomainEvent) -> String {
        do { return "\(try read())" } catch { return "error: \(error)" }
    }

    @Test("the payloads this release writes are read by the scan, equal to the decoder's reading")
    func writtenPayloadsTakeTheScan() throws {
        for event in [Fixtures.favorited("vvG1zZ9pBk"), .unfavorited(Unfavorited(listingID: "vvG1zZ9pBk")),
                      .favorited(Favorited(listingID: "L\"1/é", summary: ListingSummary(name: "Na\nme \\ 🎭", venue: "V", localDateTime: "", category: "Music")))] {
            let (type, data) = try event.encode()
            let scanned = type == Favorited.typeName ? data.withUnsafeBytes(Favorited.init(scanning:)).map(DomainEvent.favorited)
                : data.withUnsafeBytes(Unfavorited.init(scanning:)).map(DomainEvent.unfavorited)
            #expect(scanned == event, "\(String(decoding: data, as: UTF8.self))")
            #expect(try DomainEvent.decode(Self.recorded(type, String(decoding: data, as: UTF8.self))) == event)
        }
    }

    @Test("other shapes, versions and malformed payloads: the same event or the same error either way")
    func everyShapeReadsTheSame() {
        let summary = #"{"category":"Music","localDateTime":"2026-12-05 19:30:00","name":"N","venue":"V"}"#
        let payloads: [(String, String)] = [
            ("Favorited", #"{"summary":\#(summary),"schemaVersion":1,"listingID":"A","extra":[1,{"x":null}]}"#),
            ("Favorited", #"{"listingID":"A","summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"A","schemaVersion":2,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"A","schemaVersion":0,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"A","schemaVersion":1}"#),
            ("Favorited", #"{"listingID":"A","schemaVersion":1,"summary":{"name":"N","venue":"V","category":"C"}}"#),
            ("Favorited", #"{"listingID":7,"schemaVersion":1,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":null,"schemaVersion":1,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"A","listingID":"B","schemaVersion":1,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"\ud800","schemaVersion":1,"summary":\#(summary)}"#),
            ("Favorited", #"{"listingID":"A","schemaVersion":1.5,"summary":\#(summary)}"#),
            ("Favorited", "[]"),
            ("Unfavorited", #"{"listingID":"A","schemaVersion":1}"#),
            ("Unfavorited", #"{"schemaVersion":1,"listingID":"A\u0041"}"#),
            ("Unfavorited", #"{"listingID":"A"}"#),
            ("Unfavorited", #"{"schemaVersion":1}"#),
            ("Unfavorited", #"{"listingID":"A","schemaVersion":3}"#),
            ("Unfavorited", #"{"listingID":["A"],"schemaVersion":1}"#),
        ]
        for (type, json) in payloads {
            let recorded = Self.recorded(type, json)
            #expect(Self.outcome { try DomainEvent.decode(recorded) } == Self.outcome { try DomainEvent.decode(type: type, data: recorded.data) },
                    "\(json)")
        }
        // The first and the reordered one above are the scan's; the others are declined by it.
        #expect(Data(payloads[0].1.utf8).withUnsafeBytes(Favorited.init(scanning:)) != nil)
        #expect(Data(payloads[13].1.utf8).withUnsafeBytes(Unfavorited.init(scanning:))?.listingID == "AA")
        for index in [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] {
            #expect(Data(payloads[index].1.utf8).withUnsafeBytes(Favorited.init(scanning:)) == nil, "\(payloads[index].1)")
        }
    }
}

@Suite("Upcasting: a log written by the first release still replays")
struct UpcastTests {
    /// Searches as the first release wrote them: miles only, a flat location, often no schemaVersion.
    static let version1Fixture: [(type: String, json: String)] = [
        ("Searched", #"{"category":"Music","distanceMiles":15,"keyword":"jazz","latitude":34.0224,"longitude":-118.2851}"#),
        ("Favorited", #"{"listingID":"A","summary":{"category":"Music","localDateTime":"2019-04-02 20:00:00","name":"Jazz Night","venue":"The Baked Potato"}}"#),
        ("Searched", #"{"category":"Sports","customLocation":"Los Angeles","distanceMiles":10,"keyword":"Lakers","schemaVersion":1}"#),
        ("Unfavorited", #"{"listingID":"A"}"#),
        ("Favorited", #"{"listingID":"B","schemaVersion":1,"summary":{"category":"Sports","localDateTime":"2019-04-05 19:30:00","name":"Lakers vs Suns","venue":"Staples Center"}}"#),
    ]

    @Test("version 1 searches become version 2: miles, and the flat location becomes current or custom")
    func upcastSearches() throws {
        let first = try DomainEvent.decode(type: "Searched", data: Data(Self.version1Fixture[0].json.utf8))
        #expect(first == .searched(Searched(
            keyword: "jazz", category: .music, distance: 15, units: .miles,
            location: .current(latitude: 34.0224, longitude: -118.2851))))
        let second = try DomainEvent.decode(type: "Searched", data: Data(Self.version1Fixture[2].json.utf8))
        #expect(second == .searched(Searched(
            keyword: "Lakers", category: .sports, distance: 10, units: .miles, location: .custom(text: "Los Angeles"))))
        // Written back, an upcast event is version 2.
        #expect(String(decoding: try second.encode().data, as: UTF8.self).contains(#""schemaVersion":2"#))
    }

    @Test("a version 1 search with no location at all is malformed")
    func upcastWithoutLocation() {
        #expect(throws: DomainEventError.malformed(
            type: "Searched", reason: "version 1 search has neither customLocation nor latitude and longitude")) {
            try DomainEvent.decode(type: "Searched", data: Data(#"{"category":"All","distanceMiles":10,"keyword":"x"}"#.utf8))
        }
    }

    @Test("a stream written by the first release replays: every event reads, and the runner decides on it")
    func replayVersion1Stream() throws {
        let store = InMemoryEventStore()
        let events = Self.version1Fixture.map { ProposedEvent(type: $0.type, data: Data($0.json.utf8)) }
        _ = try store.append(events, to: UserStream.id(for: "old-user"), expectedVersion: .noStream)

        let recorded = try store.read(stream: "old-user")
        let replayed = try recorded.map(DomainEvent.decode)
        #expect(replayed.count == 5)
        #expect(replayed.reduce(UserDecider.initialState, UserDecider.evolve) == UserState(favorites: ["B"]))

        let runner = CommandRunner(store: store)
        #expect(try runner.load(user: "old-user").state == UserState(favorites: ["B"]))
        #expect(try runner.handle(Fixtures.favorite("B"), context: Fixtures.context(user: "old-user"))
            == .unchanged(.alreadyFavorite(listingID: "B")))
        #expect(try runner.handle(.search(Fixtures.search()), context: Fixtures.context(user: "old-user")).isRecorded)
    }
}
