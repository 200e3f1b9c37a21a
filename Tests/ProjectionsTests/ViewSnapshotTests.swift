import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StorePostgres
import StoreSQLite
import Synchronization
import Testing
import TestSupport

/// A store that keeps snapshots, for the time-travel tests.
typealias SnapshotViewStore = any EventStore & SnapshotDocuments & MultiStreamAppending & AuditableEventStore

/// The log of a store without its snapshots: what a full replay reads.
final class StreamOnly: EventStore {
    let base: any EventStore
    init(_ base: any EventStore) { self.base = base }
    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
}

/// Passes everything through, snapshots included, and counts the events read from streams.
final class CountingSnapshotStore: EventStore, SnapshotDocuments {
    let base: SnapshotViewStore
    let eventsRead = Mutex(0)
    init(_ base: SnapshotViewStore) { self.base = base }
    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        let events = try base.read(stream: stream, from: version, direction: direction, limit: limit)
        eventsRead.withLock { $0 += events.count }
        return events
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
    func snapshotDocument(kind: String, slot: Int64, stream: String) throws -> Data? {
        try base.snapshotDocument(kind: kind, slot: slot, stream: stream)
    }
    func saveSnapshotDocuments(_ documents: [SnapshotDocument]) throws { try base.saveSnapshotDocuments(documents) }
}

@Suite("View snapshots: time travel and history paging over a long stream read near the point, and answer as a full replay does")
struct ViewSnapshotTests {
    static let kinds = ["sqlite", "postgres"]

    func withStore(_ kind: String, _ body: (SnapshotViewStore) throws -> Void) throws {
        if kind == "sqlite" {
            let made = try TestStores.sqliteFile()
            defer { made.cleanup() }
            try body(made.store)
        } else {
            let made = try TestStores.postgres()
            defer { made.cleanup() }
            try body(made.store)
        }
    }

    /// Appends `count` simulated actions of `user` (with one event of `other` after every
    /// seventh, so positions and versions part ways), in batches.
    func fill(_ store: SnapshotViewStore, user: String, other: String = "zed", count: Int, seed: UInt64) throws {
        var generator = ActivityGenerator(users: 1, listings: 12, seed: seed)
        var versions: [String: Int64] = [user: try store.version(of: user), other: try store.version(of: other)]
        var parts: [StreamAppend] = []
        func add(_ stream: String, _ command: UserCommand) throws {
            let event: DomainEvent
            switch command {
            case .search(let search): event = .searched(search)
            case let .favorite(listing, summary): event = .favorited(Favorited(listingID: listing, summary: summary))
            case .unfavorite(let listing): event = .unfavorited(Unfavorited(listingID: listing))
            case let .viewDetails(listing, details): event = .detailsViewed(DetailsViewed(listingID: listing, details: details))
            }
            let (type, data) = try event.encode()
            let metadata = try EventMetadata(userID: stream, occurredAt: Date(), handledAt: Date(), correlationID: "c", causationID: "c", source: "test").encoded()
            parts.append(StreamAppend(stream: stream, expectedVersion: .exactly(versions[stream]!), events: [ProposedEvent(type: type, data: data, metadata: metadata)]))
            versions[stream]! += 1
        }
        for index in 0..<count {
            try add(user, generator.next().command)
            if index % 7 == 6 { try add(other, generator.next().command) }
            if parts.count >= 200 { _ = try store.append(parts); parts = [] }
        }
        if !parts.isEmpty { _ = try store.append(parts) }
    }

    func expectSameAsReplay(_ store: SnapshotViewStore, user: String, at position: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let plain = StreamOnly(store)
        #expect(try TimeTravel.document(Views.favorites, key: user, asOf: .position(position), in: store)
                == TimeTravel.document(Views.favorites, key: user, asOf: .position(position), in: plain), "favorites at \(position)", sourceLocation: sourceLocation)
        #expect(try TimeTravel.document(Views.recentSearches, key: user, asOf: .position(position), in: store)
                == TimeTravel.document(Views.recentSearches, key: user, asOf: .position(position), in: plain), "recent at \(position)", sourceLocation: sourceLocation)
        #expect(try TimeTravel.document(Views.recentlyViewed, key: user, asOf: .position(position), in: store)
                == TimeTravel.document(Views.recentlyViewed, key: user, asOf: .position(position), in: plain), "viewed at \(position)", sourceLocation: sourceLocation)
    }

    @Test("as of any position, views from snapshots equal a full replay, and read at most a thousand events", arguments: kinds)
    func asOfEqualsReplay(_ kind: String) throws {
        try withStore(kind) { store in
            try fill(store, user: "ada", count: 3_500, seed: 5)
            try ViewSnapshots.update(stream: "ada", through: try store.version(of: "ada"), in: store)
            for slot: Int64 in [1_000, 2_000, 3_000] {
                #expect(try store.snapshotDocument(kind: ViewSnapshots.kind(of: Views.favorites), slot: slot, stream: "ada") != nil)
            }
            let head = try store.headPosition()
            var random = SplitMix64(seed: 3)
            var positions: [Int64] = [1, 2, head, head - 1]
            for version: Int64 in [999, 1_000, 1_001, 2_000, 3_000, 3_001] {   // around the slots
                positions.append(try store.read(stream: "ada", from: version, direction: .forwards, limit: 1)[0].position)
            }
            for _ in 0..<12 { positions.append(Int64.random(in: 1...head, using: &random)) }
            for position in positions { try expectSameAsReplay(store, user: "ada", at: position) }

            let counting = CountingSnapshotStore(store)
            _ = try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(head), in: counting)
            #expect(counting.eventsRead.withLock { $0 } <= 520, "from the snapshot at 3,000: 500 events and the search, not 3,500")
        }
    }

    @Test("a snapshot that is corrupt, of another user, of an erased stream, or missing changes no answer", arguments: kinds)
    func badSnapshots(_ kind: String) throws {
        try withStore(kind) { store in
            try fill(store, user: "ada", count: 2_100, seed: 8)
            try fill(store, user: "bob", count: 1_100, seed: 9)
            for user in ["ada", "bob"] { try ViewSnapshots.update(stream: user, through: try store.version(of: user), in: store) }
            let head = try store.headPosition()
            let favorites = ViewSnapshots.kind(of: Views.favorites)
            let good = try #require(try store.snapshotDocument(kind: favorites, slot: 2_000, stream: "ada"))

            // A document changed without its check, cut short, or not JSON.
            let text = String(decoding: good, as: UTF8.self)
            #expect(text.contains(#""listingID":""#), "ada has favorites at 2,000")
            // (PostgreSQL's json column takes only JSON, so bytes cut short are tried on SQLite alone.)
            let cutShort = kind == "sqlite" ? [String(text.prefix(text.count / 2))] : []
            for bad in [text.replacingOccurrences(of: #""listingID":""#, with: #""listingID":"X"#), #"{"check":"0","version":2000}"#, "[]"] + cutShort {
                try store.saveSnapshotDocument(Data(bad.utf8), kind: favorites, slot: 2_000, stream: "ada")
                try expectSameAsReplay(store, user: "ada", at: head)
            }
            // Bob's snapshot under ada's name.
            try store.saveSnapshotDocument(try #require(try store.snapshotDocument(kind: favorites, slot: 1_000, stream: "bob")),
                                           kind: favorites, slot: 2_000, stream: "ada")
            try expectSameAsReplay(store, user: "ada", at: head)
            try store.saveSnapshotDocument(good, kind: favorites, slot: 2_000, stream: "ada")

            // Erased: the snapshots go with the payloads; one put back (from a backup) is not used.
            _ = try store.erase(Erasure.Request(stream: "ada", reason: "asked", operatorName: "ops"))
            #expect(try store.snapshotDocument(kind: favorites, slot: 2_000, stream: "ada") == nil)
            #expect(try store.snapshotDocument(kind: favorites, slot: 1_000, stream: "bob") != nil, "only the erased user's")
            try store.saveSnapshotDocument(good, kind: favorites, slot: 2_000, stream: "ada")
            try expectSameAsReplay(store, user: "ada", at: head)
            #expect(try TimeTravel.document(Views.favorites, key: "ada", asOf: .position(head), in: store) == nil, "erased favorites are gone")
        }
    }

    @Test("history after a position starts there, through the stream's index, and pages as a full read does", arguments: kinds)
    func historyPaging(_ kind: String) throws {
        try withStore(kind) { store in
            try fill(store, user: "ada", count: 2_400, seed: 2)
            let all = try History.entries(of: "ada", in: store)
            #expect(all.count == 2_400)
            for after in [0, all[0].position, all[1_199].position, all[1_199].position + 1, all[2_399].position, try store.headPosition() + 5] {
                let counting = CountingSnapshotStore(store)
                var page: [History.Entry] = []
                try History.forEachEntry(of: "ada", in: counting, afterPosition: after) { page.append($0) }
                #expect(page == all.filter { $0.position > after }, "after \(after)")
                #expect(counting.eventsRead.withLock { $0 } <= page.count + 40, "after \(after): read from the position on")
            }
            #expect(try StreamSearch.firstVersion(of: "nobody", afterPosition: 10, in: store) == 1)
        }
    }
}
