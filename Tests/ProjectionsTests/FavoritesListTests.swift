import Commands
import EventLog
import Foundation
import JSONKit
@testable import Projections
import Simulation
import Testing

/// The favorites document held in shared chunks (``FavoritesProjection/List``) folds as the
/// plain array before it did, writes the same bytes, reads back what that code stored, and a
/// copy (a state time travel keeps) never changes when the document folded on from it does.
@Suite("Favorites in shared chunks: the fold and the bytes of the plain list, copies untouched")
struct FavoritesListTests {
    /// The fold and the encoding before the chunked list (evtool at 3a458d9): a plain array,
    /// searched and filtered, written as an array field of the items.
    struct Reference {
        var items: [FavoritesProjection.Item] = []

        static let fields = DocumentFields<Reference>(blank: { Reference() }, [.array("items", \.items, FavoritesProjection.Item.fields)])

        mutating func apply(_ event: ViewEvent) {
            switch event.action {
            case let .favorited(listing, summary):
                if !items.contains(where: { $0.listingID == listing }) {
                    items.append(FavoritesProjection.Item(listingID: listing, summary: summary, addedAt: event.recordedAt))
                }
            case .unfavorited(let listing):
                items.removeAll { $0.listingID == listing }
            default:
                break
            }
        }

        /// The document's bytes as that code wrote them (nil: no document).
        var json: String? {
            guard !items.isEmpty else { return nil }
            var writer = JSONWriter()
            Self.fields.write(self, to: &writer)
            return String(decoding: writer.data, as: UTF8.self)
        }
    }

    /// Favorites and removals of `listings` listings, most of them favorites at first, then
    /// as many removals as favorites (so lists grow past the chunked size and shrink back).
    static func events(count: Int, listings: Int, seed: UInt64) -> [ViewEvent] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let listing = "L\(random.next() % UInt64(listings))"
            let removing = random.next() % 100 < (index < count / 3 ? 15 : index < 2 * count / 3 ? 50 : 70)
            let action: ViewEvent.Action = removing ? .unfavorited(listingID: listing)
                : .favorited(listingID: listing, summary: ListingSummary(name: "Show \(listing) at the long-named hall", venue: "Hall \(index % 7)",
                                                                         localDateTime: "2026-12-05 19:30:00", category: "Music"))
            return ViewEvent(position: Int64(index + 1), userID: "power", recordedAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(index)), action: action)
        }
    }

    func json(_ document: FavoritesProjection.Document?) -> String? {
        document.map { String(decoding: $0.jsonData, as: UTF8.self) }
    }

    @Test("after every event: the same items, count, membership and bytes as the plain array", arguments: [(600, 60), (4_000, 700)])
    func sameAsPlainList(_ count: Int, _ listings: Int) throws {
        var document: FavoritesProjection.Document?
        var reference = Reference()
        var largest = 0
        for (index, event) in Self.events(count: count, listings: listings, seed: UInt64(count)).enumerated() {
            Views.favorites.evolve(&document, with: event)
            reference.apply(event)
            largest = max(largest, reference.items.count)
            #expect(document?.count ?? 0 == reference.items.count)
            if index % 97 == 0 || index == count - 1 {
                #expect(document?.items ?? [] == reference.items, "items after event \(index)")
                #expect(json(document) == reference.json, "bytes after event \(index)")
                for probe in ["L1", "L2", "L\(index % listings)", "none"] {
                    #expect(document?.contains(listing: probe) ?? false == reference.items.contains { $0.listingID == probe })
                }
            }
        }
        #expect(largest > FavoritesProjection.List.indexAbove, "the list was chunked at some point: at most \(largest) items")
    }

    @Test("a copy taken at any point stays as it was while the original and other copies fold on")
    func copiesAreUntouched() throws {
        let events = Self.events(count: 2_400, listings: 400, seed: 7)
        var document: FavoritesProjection.Document?
        var reference = Reference()
        var kept: [(document: FavoritesProjection.Document?, json: String?, items: [FavoritesProjection.Item])] = []
        var branches: [(document: FavoritesProjection.Document?, reference: Reference)] = []
        for (index, event) in events.enumerated() {
            Views.favorites.evolve(&document, with: event)
            reference.apply(event)
            if index % 120 == 0 {
                kept.append((document, reference.json, reference.items))
                branches.append((document, reference))
            }
            // Each branch folds a different tail from its copy: unfavorite its oldest, favorite a new one.
            for branch in branches.indices where index % 5 == branch % 5 {
                let oldest = branches[branch].reference.items.first?.listingID ?? "L0"
                for change in [ViewEvent.Action.unfavorited(listingID: oldest),
                               .favorited(listingID: "B\(branch)-\(index)", summary: ListingSummary(name: "n", venue: "v", localDateTime: "d", category: "c"))] {
                    let branchEvent = ViewEvent(position: event.position, userID: "power", recordedAt: event.recordedAt, action: change)
                    Views.favorites.evolve(&branches[branch].document, with: branchEvent)
                    branches[branch].reference.apply(branchEvent)
                }
            }
        }
        #expect(kept.count >= 20)
        for (document, json, items) in kept {
            #expect(self.json(document) == json)
            #expect(document?.items ?? [] == items)
        }
        for branch in branches {
            #expect(json(branch.document) == branch.reference.json)
            #expect(branch.document?.count ?? 0 == branch.reference.items.count)
        }
        #expect(json(document) == reference.json)
    }

    @Test("a large document stored by the plain list's code reads back equal and writes the same bytes; a list with a repeated listing stays plain")
    func storedLargeDocuments() throws {
        var reference = Reference()
        for event in Self.events(count: 1_500, listings: 300, seed: 3) { reference.apply(event) }
        let stored = try #require(reference.json)
        #expect(reference.items.count > 100)
        let decoded = try FavoritesProjection.Document.decode(Data(stored.utf8))
        #expect(decoded.list.large != nil, "chunked when read")
        #expect(json(decoded) == stored)
        #expect(decoded.items == reference.items)
        #expect(decoded == FavoritesProjection.Document(items: reference.items))

        // The decoded document folds on as the plain list does.
        var document: FavoritesProjection.Document? = decoded
        for event in Self.events(count: 1_000, listings: 300, seed: 4) {
            Views.favorites.evolve(&document, with: event)
            reference.apply(event)
        }
        #expect(json(document) == reference.json)

        // Stored by other code with a listing twice: removing it removes both, as before.
        var twice = Reference()
        twice.items = (0..<40).map { FavoritesProjection.Item(listingID: "L\($0 % 39)", summary: ListingSummary(name: "n", venue: "v", localDateTime: "d", category: "c"),
                                                              addedAt: Date(timeIntervalSince1970: 1_796_000_000)) }
        var odd: FavoritesProjection.Document? = try FavoritesProjection.Document.decode(Data(try #require(twice.json).utf8))
        #expect(odd?.list.large == nil)
        let removal = ViewEvent(position: 1, userID: "u", recordedAt: Date(), action: .unfavorited(listingID: "L0"))
        Views.favorites.evolve(&odd, with: removal)
        twice.apply(removal)
        #expect(json(odd) == twice.json)
        #expect(odd?.count == 38)
    }
}
