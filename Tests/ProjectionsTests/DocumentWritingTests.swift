import Commands
import EventLog
import Foundation
import JSONKit
@testable import Projections
import Simulation
import Testing

/// Each view writes its documents by hand (`Document.write(to:)`, the commits' hot path); the
/// declared fields (``DocumentFields``) stay what defines the bytes. On random documents —
/// strings full of quotes, backslashes, control and multi-byte characters, numbers of every
/// kind, times before 1970, favorites lists plain and chunked — both write the same bytes,
/// and a writer reused from one document to the next writes what a fresh one writes.
@Suite("View documents: the hand-written writers write what the declared fields declare")
struct DocumentWritingTests {
    /// The bytes the declared fields write for `document`.
    static func declared<D: DeclaredDocument>(_ document: D) -> String {
        var writer = JSONWriter()
        D.fields.write(document, to: &writer)
        return writer.text
    }

    /// Checks the hand-written bytes against the declared ones, and a dirty reused writer.
    static func check<D: DeclaredDocument>(_ document: D, _ reused: inout JSONWriter, _ label: String) {
        let expected = declared(document)
        #expect(String(decoding: document.jsonData, as: UTF8.self) == expected, "\(label)")
        #expect(String(decoding: document.jsonData(reusing: &reused), as: UTF8.self) == expected, "\(label), reused writer")
    }

    @Test("property: random favorites (plain and chunked), recent searches, recently viewed and cached details")
    func randomDocuments() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        var reused = JSONWriter()
        reused.string("left over from another document")
        for round in 0..<400 {
            var favorites = FavoritesProjection.Document(items: [])
            for index in 0..<Int.random(in: 0...90, using: &random) {
                _ = favorites.list.add(Self.favorite(listing: "L\(index)-" + Self.text(&random), &random))
            }
            // Removals, so that a chunked list has chunks of every size (and may turn plain again).
            for _ in 0..<Int.random(in: 0...30, using: &random) where favorites.count > 0 {
                let items = favorites.items
                favorites.list.remove(listing: items[Int.random(in: 0..<items.count, using: &random)].listingID)
            }
            Self.check(favorites, &reused, "favorites, round \(round) of seed \(seed), \(favorites.count) items")
            // A list with a repeated listing (only other code stores one) stays plain.
            let twice = FavoritesProjection.Document(items: (0..<40).map { Self.favorite(listing: "L\($0 % 33)", &random) })
            Self.check(twice, &reused, "favorites with repeated listings, round \(round) of seed \(seed)")

            let searches = RecentSearchesProjection.Document(items: (0..<Int.random(in: 0...25, using: &random)).map { _ in
                Self.search(&random)
            })
            Self.check(searches, &reused, "recent searches, round \(round) of seed \(seed)")

            let viewed = RecentlyViewedProjection.Document(items: (0..<Int.random(in: 0...25, using: &random)).map { _ in
                RecentlyViewedProjection.Item(listingID: Self.text(&random), name: Self.text(&random), viewedAt: Self.date(&random))
            })
            Self.check(viewed, &reused, "recently viewed, round \(round) of seed \(seed)")

            let details = CachedDetailsProjection.Document(details: Data(("{\"name\":" + JSONString.quoted(Self.text(&random)) + "}").utf8),
                                                           fetchedAt: Self.date(&random), fetchedBy: Self.text(&random),
                                                           views: Self.integer(&random))
            Self.check(details, &reused, "cached details, round \(round) of seed \(seed)")
        }
    }

    @Test("the documents of a simulated log: every view of the fold writes the declared bytes")
    func simulatedViews() throws {
        var generator = ActivityGenerator(users: 40, listings: 300, seed: 11)
        var events: [ViewEvent] = []
        for position in 1...6_000 {
            let action = generator.next()
            let recordedAt = Date(timeIntervalSince1970: 1_796_000_000 + Double(position) * 0.25)
            let viewAction: ViewEvent.Action
            switch action.command {
            case .search(let search): viewAction = .searched(ViewEvent.Search(search))
            case let .favorite(listing, summary): viewAction = .favorited(listingID: listing, summary: summary)
            case .unfavorite(let listing): viewAction = .unfavorited(listingID: listing)
            case let .viewDetails(listing, details):
                viewAction = .detailsViewed(listingID: listing, name: details.info.name, details: try JSONEncoder().encode(details))
            }
            events.append(ViewEvent(position: Int64(position), userID: action.userID, recordedAt: recordedAt, action: viewAction))
        }
        var reused = JSONWriter()
        var checked = 0
        for document in Views.favorites.fold(events).values { Self.check(document, &reused, "favorites"); checked += 1 }
        for document in Views.recentSearches.fold(events).values { Self.check(document, &reused, "recent searches"); checked += 1 }
        for document in Views.recentlyViewed.fold(events).values { Self.check(document, &reused, "recently viewed"); checked += 1 }
        for document in Views.cachedDetails.fold(events).values { Self.check(document, &reused, "cached details"); checked += 1 }
        #expect(checked > 100)
    }

    // MARK: - Random values

    static func favorite(listing: String, _ random: inout SplitMix64) -> FavoritesProjection.Item {
        FavoritesProjection.Item(listingID: listing,
                                 summary: ListingSummary(name: text(&random), venue: text(&random), localDateTime: text(&random), category: text(&random)),
                                 addedAt: date(&random))
    }

    static func search(_ random: inout SplitMix64) -> RecentSearchesProjection.Item {
        let keyword = text(&random)
        let category = SearchCategory.allCases.randomElement(using: &random)!
        let distance = number(&random)
        let units: DistanceUnit = Bool.random(using: &random) ? .km : .miles
        let location: SearchLocation = Bool.random(using: &random) ? .current(latitude: number(&random), longitude: number(&random)) : .custom(text: text(&random))
        return RecentSearchesProjection.Item(keyword: keyword, category: category, distance: distance, units: units, location: location,
                                             resultCount: Bool.random(using: &random) ? nil : integer(&random), searchedAt: date(&random),
                                             identity: RecentSearchesProjection.identity(keyword: keyword, category: category, distance: distance,
                                                                                         units: units, location: location))
    }

    /// Text of 0 to 40 characters (small and heap strings), with what JSON escapes and multi-byte text.
    static func text(_ random: inout SplitMix64) -> String {
        let pieces = ["a", "Z", "7", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{1}", "\u{1F}", "\u{7F}", "é", "e\u{301}", "Ω", "🎵", "👩‍👩‍👧", "\u{2028}"]
        let plain = Int.random(in: 0..<3, using: &random) == 0
        return String((0..<Int.random(in: 0...40, using: &random)).map { _ in
            plain ? Character(UnicodeScalar(UInt8.random(in: 0x61...0x7A, using: &random))) : Character(pieces.randomElement(using: &random)!)
        })
    }

    /// A finite number: whole (small and beyond 1e15), decimal, tiny, huge, negative or -0.
    static func number(_ random: inout SplitMix64) -> Double {
        switch Int.random(in: 0..<8, using: &random) {
        case 0: return Double(Int.random(in: -1_000...1_000, using: &random))
        case 1: return Double(Int.random(in: -(1 << 53)...(1 << 53), using: &random))
        case 2: return [-0.0, 0, 1e15, -1e15, 1e15 - 1, 1e16, 1e-6, .leastNonzeroMagnitude, .greatestFiniteMagnitude].randomElement(using: &random)!
        case 3: return Double(Int.random(in: -180_000...180_000, using: &random)) / 1_000
        case 4: return Double.random(in: -1...1, using: &random)
        default:
            var value: Double
            repeat { value = Double(bitPattern: random.next()) } while !value.isFinite
            return value
        }
    }

    static func integer(_ random: inout SplitMix64) -> Int {
        Bool.random(using: &random) ? Int.random(in: -10...100_000, using: &random) : [Int.min, Int.max, 0, -1, 9, 10].randomElement(using: &random)!
    }

    /// A time to the microsecond, from before 1970 to past 2100.
    static func date(_ random: inout SplitMix64) -> Date {
        Timestamp.date(microseconds: Int64.random(in: -2_000_000_000_000_000...5_000_000_000_000_000, using: &random))
    }
}
