@testable import Commands
import EventLog
import Foundation
import Simulation
import StorePostgres
import StoreSQLite
import Testing
import TestSupport

/// A store the snapshot tests run on: the log, its snapshot documents, erasure.
typealias SnapshotTestStore = any EventStore & SnapshotDocuments & AuditableEventStore

@Suite("Stored snapshots: decisions from a snapshot in the store equal a full replay, on SQLite and PostgreSQL")
struct StoredSnapshotTests {
    static let stores = ["sqlite", "postgres"]

    func withStore(_ kind: String, _ body: (SnapshotTestStore, () throws -> SnapshotTestStore) throws -> Void) throws {
        if kind == "sqlite" {
            let made = try TestStores.sqliteFile()
            defer { made.cleanup() }
            try body(made.store, made.open)
        } else {
            let made = try TestStores.postgres()
            defer { made.cleanup() }
            try body(made.store, made.open)
        }
    }

    /// The state a full replay of the stream gives (no cache, no snapshot).
    func replayed(_ user: String, _ store: SnapshotTestStore) throws -> LoadedUser {
        try CommandRunner(store: store, cache: nil).load(user: user)
    }

    /// Checks that a fresh runner (a new process) with snapshots decides `command` as a full replay does.
    func expectSameDecision(_ command: UserCommand, user: String, _ store: SnapshotTestStore, interval: Int = 5,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let truth = try replayed(user, store)
        let expected = try UserDecider.decision(command, state: truth.state)
        let runner = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store), snapshotInterval: interval)
        #expect(try runner.load(user: user).state == truth.state, sourceLocation: sourceLocation)
        let outcome = try runner.handle(command, context: Fixtures.context(user: user))
        switch (expected, outcome) {
        case (.unchanged(let reason), .unchanged(let got)): #expect(reason == got, sourceLocation: sourceLocation)
        case (.record, .recorded): break
        default: Issue.record("decided \(outcome), a full replay decides \(expected)", sourceLocation: sourceLocation)
        }
    }

    @Test("random commands, new processes, erasures: every decision equals a full replay's", arguments: stores)
    func property(_ kind: String) throws {
        try withStore(kind) { store, _ in
            var random = SplitMix64(seed: 17)
            let users = ["ada", "bob", "cy"]
            let listings = ["L1", "L2", "L3", "L4"]
            for step in 0..<240 {
                let user = users[Int(random.next() % UInt64(users.count))]
                let listing = listings[Int(random.next() % UInt64(listings.count))]
                let command: UserCommand
                switch random.next() % 4 {
                case 0: command = .search(Fixtures.search("k\(step)"))
                case 1: command = .unfavorite(listingID: listing)
                default: command = Fixtures.favorite(listing)
                }
                try expectSameDecision(command, user: user, store, interval: 1 + Int(random.next() % 7))
                if step % 61 == 60 {   // erase a user now and then: the snapshot goes, the user carries on
                    _ = try store.erase(Erasure.Request(stream: user, reason: "test", operatorName: "t"))
                    #expect(try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: user) == nil,
                            "an erasure deletes the user's snapshot")
                }
            }
            let kept = try users.filter { try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: $0) != nil }
            #expect(!kept.isEmpty, "snapshots were saved along the way")
        }
    }

    @Test("a snapshot is saved in the store and a new process reads only the events since", arguments: stores)
    func readsSinceSnapshot(_ kind: String) throws {
        try withStore(kind) { store, open in
            let runner = CommandRunner(store: store, snapshots: DocumentSnapshots(store: store), snapshotInterval: 100)
            _ = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context())
            for index in 0..<250 { _ = try runner.handle(.search(Fixtures.search("k\(index)")), context: Fixtures.context()) }
            let snapshot = try #require(try DocumentSnapshots(store: store).latestSnapshot(stream: "user-1"))
            #expect(snapshot.version >= 200 && snapshot.favorites == ["A"])

            let counting = CountingStore(base: try open())
            let restarted = CommandRunner(store: counting, cache: nil, snapshots: DocumentSnapshots(store: try open()))
            #expect(try restarted.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
            #expect(counting.eventsRead.withLock { $0 } <= 100, "read from the snapshot on, not all 251 events")
        }
    }

    /// Puts `document` where the runner looks for user-1's snapshot.
    func plant(_ document: Data, _ store: SnapshotTestStore) throws {
        try store.saveSnapshotDocument(document, kind: DocumentSnapshots.kind, slot: 0, stream: "user-1")
    }

    func snapshotJSON(_ store: SnapshotTestStore, user: String = "user-1") throws -> Data {
        try #require(try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: user))
    }

    /// user-1 with A favorited and then unfavorited, a snapshot taken while A was a favorite.
    func favoritedThenUnfavorited(_ store: SnapshotTestStore) throws -> Data {
        let runner = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store), snapshotInterval: 1)
        _ = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context())
        _ = try runner.load(user: "user-1")   // saves the snapshot at version 1 (A a favorite)
        let taken = try snapshotJSON(store)
        _ = try CommandRunner(store: store, cache: nil).handle(.unfavorite(listingID: "A"), context: Fixtures.context())
        return taken
    }

    @Test("a corrupt snapshot (cut short, garbage, a field changed without its check) changes no decision", arguments: stores)
    func corrupt(_ kind: String) throws {
        try withStore(kind) { store, _ in
            _ = try CommandRunner(store: store, cache: nil).handle(.search(Fixtures.search()), context: Fixtures.context())
            let runner = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store), snapshotInterval: 1)
            _ = try runner.load(user: "user-1")
            let good = String(decoding: try snapshotJSON(store), as: UTF8.self)
            #expect(good.contains(#""favorites":[]"#))
            for bad in [good.replacingOccurrences(of: #""favorites":[]"#, with: #""favorites":["A"]"#),
                        #"{"schemaVersion":2,"version":1}"#, #"[1,2,3]"#, #"{"schemaVersion":1,"version":1,"favorites":["A"],"recentEventIDs":[]}"#] {
                try plant(Data(bad.utf8), store)
                #expect(throws: (any Error).self) { try DocumentSnapshots(store: store).latestSnapshot(stream: "user-1") }
                try expectSameDecision(Fixtures.favorite("A"), user: "user-1", store)
                _ = try CommandRunner(store: store, cache: nil).handle(.unfavorite(listingID: "A"), context: Fixtures.context())
            }
        }
    }

    @Test("a snapshot of another decider version changes no decision", arguments: stores)
    func otherDecider(_ kind: String) throws {
        try withStore(kind) { store, _ in
            let stale = try favoritedThenUnfavorited(store)
            var snapshot = try JSONDecoder().decode(UserSnapshot.self, from: stale)
            snapshot.decider = UserDecider.stateVersion + 1
            snapshot.version = 2   // the right version, hash unknown: only the decider version tells it apart
            snapshot.lastEventHash = ""
            snapshot.recentEventIDs = try store.read(stream: "user-1").map(\.id)
            try plant(try JSONEncoder().encode(snapshot), store)
            #expect(throws: DomainEventError.self) { try DocumentSnapshots(store: store).latestSnapshot(stream: "user-1") }
            try expectSameDecision(Fixtures.favorite("A"), user: "user-1", store)
        }
    }

    @Test("a snapshot of another stream, or of another log (ahead of the stream), changes no decision", arguments: stores)
    func foreign(_ kind: String) throws {
        try withStore(kind) { store, _ in
            let runner = CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store), snapshotInterval: 1)
            _ = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context(user: "bob"))
            _ = try runner.handle(.search(Fixtures.search()), context: Fixtures.context(user: "bob"))
            _ = try runner.load(user: "bob")
            _ = try CommandRunner(store: store, cache: nil).handle(.search(Fixtures.search()), context: Fixtures.context())
            _ = try CommandRunner(store: store, cache: nil).handle(.search(Fixtures.search()), context: Fixtures.context())
            try plant(try snapshotJSON(store, user: "bob"), store)   // bob's state (A) under user-1, at the same version
            try expectSameDecision(Fixtures.favorite("A"), user: "user-1", store)
            #expect(try store.read(stream: "user-1").map(\.type).last == "Favorited", "user-1 never had A: it is recorded")

            var ahead = try JSONDecoder().decode(UserSnapshot.self, from: try snapshotJSON(store, user: "bob"))
            ahead.version = 50
            try plant(try JSONEncoder().encode(ahead), store)   // a snapshot from a log that went further
            try expectSameDecision(.unfavorite(listingID: "B"), user: "user-1", store)
            try expectSameDecision(Fixtures.favorite("B"), user: "user-1", store)
        }
    }

    @Test("a stale snapshot (older version) is brought up to date, and one from before an erasure is not used", arguments: stores)
    func staleAndErased(_ kind: String) throws {
        try withStore(kind) { store, _ in
            let stale = try favoritedThenUnfavorited(store)
            try plant(stale, store)   // A a favorite at version 1; version 2 unfavorited it
            try expectSameDecision(Fixtures.favorite("A"), user: "user-1", store)   // recorded again (version 3)
            _ = try CommandRunner(store: store, cache: nil, snapshots: DocumentSnapshots(store: store), snapshotInterval: 1).load(user: "user-1")
            let beforeErasure = try snapshotJSON(store)
            _ = try store.erase(Erasure.Request(stream: "user-1", reason: "asked", operatorName: "ops"))
            #expect(try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: "user-1") == nil)
            try plant(beforeErasure, store)   // e.g. restored from a backup: it still holds A
            try expectSameDecision(Fixtures.favorite("A"), user: "user-1", store)
            #expect(try store.read(stream: "user-1").last?.type == "Favorited", "an erased favorite is no longer known")
        }
    }
}
