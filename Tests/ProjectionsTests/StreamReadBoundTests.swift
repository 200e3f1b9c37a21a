import Commands
import EventLog
import Foundation
import Projections
import Synchronization
import Testing
import TestSupport

@Suite("Reads of one user that do not grow with the stream: as-of up to the position, the latest history from the end")
struct StreamReadBoundTests {
    static let kinds = ["sqlite", "postgres"]

    /// The view as of `position` by the definition: every event of the stream, read whole and
    /// folded when it is at or before the position.
    func replay<P: Projection>(_ projection: P, user: String, position: Int64, in store: any EventStore) throws -> P.Document? {
        var document: P.Document?
        for recorded in try store.read(stream: UserStream.id(for: user), from: 1, direction: .forwards, limit: 1_000_000)
        where recorded.position <= position {
            if let event = ViewEvent.decode(recorded), projection.key(for: event) == projection.documentKey(user) {
                projection.evolve(&document, with: event)
            }
        }
        return document
    }

    @Test("as of a position without a view snapshot, the stream is read up to its version there, and the views equal a full replay", arguments: kinds)
    func asOfReadsUpToThePosition(_ kind: String) throws {
        try ViewSnapshotTests().withStore(kind) { store in
            try ViewSnapshotTests().fill(store, user: "ada", count: 300, seed: 6)
            let all = try store.read(stream: "ada", from: 1, direction: .forwards, limit: 1_000)
            #expect(all.count == 300)
            var positions: [Int64] = []
            for version in [1, 2, 30, 150, 299, 300] {
                positions += [all[version - 1].position, all[version - 1].position + 1]   // and just after (zed's, ada's next, or past the head)
            }
            for position in positions {
                let version = all.filter { $0.position <= position }.count
                let withSnapshots = CountingSnapshotStore(store), plain = CountingStore(base: store)
                let stores: [(String, any EventStore, () -> Int)] = [
                    ("with snapshots", withSnapshots, { withSnapshots.eventsRead.withLock { $0 } }),
                    ("without", plain, { plain.eventsRead.withLock { $0 } }),
                ]
                for (name, counting, read) in stores {
                    let favorites = try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(position), in: counting)
                    // log2(300) + 2 one-event reads to find the version, then the events up to it.
                    #expect(read() <= version + 12, "\(name), at version \(version): read \(read()) events, not the stream's 300")
                    let recent = try TimeTravel.document(Views.recentSearches, key: "ada", asOf: .position(position), in: counting)
                    let viewed = try TimeTravel.document(Views.recentlyViewed, key: "ada", asOf: .position(position), in: counting)
                    let expected = (try replay(Views.favorites, user: "ada", position: position, in: store),
                                    try replay(Views.recentSearches, user: "ada", position: position, in: store),
                                    try replay(Views.recentlyViewed, user: "ada", position: position, in: store))
                    #expect(favorites == expected.0, "favorites at \(position)")
                    #expect(recent == expected.1, "recent at \(position)")
                    #expect(viewed == expected.2, "viewed at \(position)")
                }
            }
            #expect(try TimeTravel.document(Views.favorites, key: "nobody", asOf: .position(5), in: store) == nil)
        }
    }

    @Test("the latest history entries are read backwards from the stream's end and equal the end of a full read", arguments: kinds)
    func latestHistoryFromTheEnd(_ kind: String) throws {
        try ViewSnapshotTests().withStore(kind) { store in
            try ViewSnapshotTests().fill(store, user: "ada", count: 2_400, seed: 3)
            let all = try History.entries(of: "ada", in: store)
            #expect(all.count == 2_400)

            let counting = CountingStore(base: store)
            let latest = try History.latestEntries(of: "ada", in: counting, limit: 50)
            #expect(latest == Array(all.suffix(50).reversed()))
            #expect(counting.eventsRead.withLock { $0 } == 50, "one read of 50 from the end, not the stream")

            // As of a position: found through the index, read backwards from there.
            let middle = all[1_199].position
            let asOf = CountingStore(base: store)
            let before = try History.latestEntries(of: "ada", in: asOf, limit: 50, filter: History.Filter(asOf: .position(middle)))
            #expect(before == Array(all.filter { $0.position <= middle }.suffix(50).reversed()))
            #expect(asOf.eventsRead.withLock { $0 } <= 50 + 14, "the search and 50 events")

            // A filter that skips most entries reads on in batches until the page is full.
            let favorited = try History.latestEntries(of: "ada", in: store, limit: 30, filter: History.Filter(types: ["Favorited"]))
            #expect(favorited == Array(all.filter { $0.type == "Favorited" }.suffix(30).reversed()))
            #expect(favorited.count == 30)
            #expect(try History.latestEntries(of: "ada", in: store, limit: 5_000) == all.reversed(), "more than there are: all, newest first")
            #expect(try History.latestEntries(of: "nobody", in: store, limit: 50).isEmpty)
            #expect(try History.latestEntries(of: "ada", in: store, limit: 0).isEmpty)
        }
    }
}
