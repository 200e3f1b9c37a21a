@testable import Commands
import EventLog
import Foundation
import Simulation
import StorePostgres
import Synchronization
import Testing
import TestSupport

/// Decision snapshots kept in the log's own store and read with the stream's tail in one round
/// trip, as `StoreSnapshots` (EvtoolKit, what `evtool serve` gives its runner) reads them.
struct SameLogSnapshots: UserSnapshotStreamReading {
    let log: any SnapshotStreamReading
    var documents: DocumentSnapshots { DocumentSnapshots(store: log) }

    func latestSnapshot(stream: String) throws -> UserSnapshot? { try documents.latestSnapshot(stream: stream) }
    func save(_ snapshot: UserSnapshot, stream: String) throws { try documents.save(snapshot, stream: stream) }
    func latestSnapshotAndEvents(stream: String, limit: Int) throws -> UserSnapshotAndEvents? {
        let read = try log.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: 0, stream: stream, limit: limit)
        return UserSnapshotAndEvents(document: read.document, from: read.from, events: read.events)
    }
    var readsUsersTogether: Bool { true }
    func latestSnapshotsAndEvents(streams: [String], limit: Int) throws -> [UserSnapshotAndEvents?] {
        try log.snapshotsAndEvents(kind: DocumentSnapshots.kind, slot: 0, streams: streams, limit: limit)
            .map { UserSnapshotAndEvents(document: $0.document, from: $0.from, events: $0.events) }
    }
}

/// A PostgreSQL log that counts the calls (round trips) made through it.
final class RoundTripCountingLog: SnapshotStreamReading {
    let base: PostgresEventStore
    let calls = Mutex<[String]>([])
    init(_ base: PostgresEventStore) { self.base = base }

    private func count(_ name: String) { calls.withLock { $0.append(name) } }
    func taken() -> [String] { calls.withLock { calls in defer { calls = [] }; return calls } }

    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        count("append"); return try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        count("read"); return try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { count("readAll"); return try base.readAll(after: position, limit: limit) }
    func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        count("scanAll"); return try base.scanAll(after: position, limit: limit, body)
    }
    func headPosition() throws -> Int64 { count("head"); return try base.headPosition() }
    func version(of stream: String) throws -> Int64 { count("version"); return try base.version(of: stream) }
    func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool { try base.waitForEvents(after: position, timeout: timeout) }
    func snapshotDocument(kind: String, slot: Int64, stream: String) throws -> Data? {
        count("snapshotDocument"); return try base.snapshotDocument(kind: kind, slot: slot, stream: stream)
    }
    func saveSnapshotDocuments(_ documents: [SnapshotDocument]) throws { count("saveSnapshots"); try base.saveSnapshotDocuments(documents) }
    func snapshotAndEvents(kind: String, slot: Int64, stream: String, limit: Int) throws -> SnapshotAndEvents {
        count("snapshotAndEvents"); return try base.snapshotAndEvents(kind: kind, slot: slot, stream: stream, limit: limit)
    }
    /// Called before each read of several streams (a test holds one there).
    let beforeReadingMany = Mutex<@Sendable ([String]) -> Void>({ _ in })
    func snapshotsAndEvents(kind: String, slot: Int64, streams: [String], limit: Int) throws -> [SnapshotAndEvents] {
        beforeReadingMany.withLock { $0 }(streams)
        count("snapshotsAndEvents \(streams.count)"); return try base.snapshotsAndEvents(kind: kind, slot: slot, streams: streams, limit: limit)
    }
}

@Suite("One round trip: a user's snapshot and the stream's tail read together on PostgreSQL decide as a full replay does")
struct OneTripSnapshotTests {
    func withPostgres(_ body: (PostgresEventStore) throws -> Void) throws {
        let made = try TestStores.postgres()
        defer { made.cleanup() }
        try body(made.store)
    }

    /// The state a full replay of the stream gives (no cache, no snapshot).
    func replayed(_ user: String, _ store: any EventStore) throws -> LoadedUser {
        try CommandRunner(store: store, cache: nil).load(user: user)
    }

    /// A fresh runner (a new process) reading snapshots with the stream decides `command` as a full replay does.
    func expectSameDecision(_ command: UserCommand, user: String, _ store: PostgresEventStore, interval: Int = 5,
                            sourceLocation: SourceLocation = #_sourceLocation) throws {
        let truth = try replayed(user, store)
        let expected = try UserDecider.decision(command, state: truth.state)
        let runner = CommandRunner(store: store, cache: nil, snapshots: SameLogSnapshots(log: store), snapshotInterval: interval)
        let loaded = try runner.load(user: user)
        #expect(loaded.state == truth.state && loaded.version == truth.version && loaded.recentEventIDs == truth.recentEventIDs,
                sourceLocation: sourceLocation)
        let outcome = try runner.handle(command, context: Fixtures.context(user: user))
        switch (expected, outcome) {
        case (.unchanged(let reason), .unchanged(let got)): #expect(reason == got, sourceLocation: sourceLocation)
        case (.record, .recorded): break
        default: Issue.record("decided \(outcome), a full replay decides \(expected)", sourceLocation: sourceLocation)
        }
    }

    func plant(_ document: String, user: String = "user-1", _ store: PostgresEventStore) throws {
        try store.saveSnapshotDocument(Data(document.utf8), kind: DocumentSnapshots.kind, slot: 0, stream: user)
    }

    @Test("the statement reads what the snapshot lookup and the stream read from its version read, whatever the document holds")
    func sameAsTwoReads() throws {
        try withPostgres { store in
            let runner = CommandRunner(store: store, cache: nil)
            for index in 0..<12 { _ = try runner.handle(.search(Fixtures.search("k\(index)")), context: Fixtures.context()) }
            func check(_ limit: Int, expectedFrom: Int64, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let read = try store.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: 0, stream: "user-1", limit: limit)
                #expect(try read.document == store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: "user-1"),
                        sourceLocation: sourceLocation)
                #expect(read.from == expectedFrom, sourceLocation: sourceLocation)
                let apart = try store.read(stream: "user-1", from: expectedFrom, direction: .forwards, limit: limit)
                #expect(read.events == apart, sourceLocation: sourceLocation)
            }
            try check(1_000, expectedFrom: 1)   // no document
            try check(3, expectedFrom: 1)
            try check(0, expectedFrom: 1)
            for (document, from) in [(#"{"version":7,"x":1}"#, Int64(7)), (#"{"version":12}"#, 12), (#"{"version":40}"#, 40),
                                     (#"{"version":"5"}"#, 5), (#"{"version":1.5}"#, 1), (#"{"version":0}"#, 1),
                                     (#"{"version":-3}"#, 1), (#"{"version":99999999999999999999}"#, 1),
                                     (#"{"version":true}"#, 1), (#"{"other":3}"#, 1), (#"[1,2,3]"#, 1), (#""text""#, 1)] {
                try plant(document, store)
                try check(1_000, expectedFrom: from)
                try check(2, expectedFrom: from)
            }
            let empty = try store.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: 0, stream: "nobody", limit: 10)
            #expect(empty.document == nil && empty.from == 1 && empty.events.isEmpty)
            #expect(throws: EventStoreError.self) { try store.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: 0, stream: "", limit: 10) }
            #expect(throws: EventStoreError.self) { try store.snapshotAndEvents(kind: "", slot: 0, stream: "user-1", limit: 10) }
            #expect(throws: EventStoreError.self) { try store.snapshotAndEvents(kind: DocumentSnapshots.kind, slot: -1, stream: "user-1", limit: 10) }
        }
    }

    @Test("several streams in one statement read what the snapshot lookup and the stream read from its version read, for each, in the order asked, a stream asked twice twice")
    func manyAsOne() throws {
        try withPostgres { store in
            let runner = CommandRunner(store: store, cache: nil)
            for index in 0..<12 { _ = try runner.handle(.search(Fixtures.search("k\(index)")), context: Fixtures.context()) }
            for index in 0..<3 { _ = try runner.handle(.search(Fixtures.search("b\(index)")), context: Fixtures.context(user: "bob")) }
            func check(_ streams: [String], limit: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
                let many = try store.snapshotsAndEvents(kind: DocumentSnapshots.kind, slot: 0, streams: streams, limit: limit)
                #expect(many.count == streams.count, sourceLocation: sourceLocation)
                for (read, stream) in zip(many, streams) {
                    let document = try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: stream)
                    let from = expectedFrom[document.map { String(decoding: $0, as: UTF8.self) } ?? ""] ?? 1
                    let apart = try store.read(stream: stream, from: from, direction: .forwards, limit: limit)
                    #expect(read.document == document && read.from == from && read.events == apart, "\(stream)", sourceLocation: sourceLocation)
                }
            }
            // The version each planted document names (the single statement's test checks every rule).
            let expectedFrom: [String: Int64] = [#"{"version":7,"x":1}"#: 7, #"{"version":40}"#: 40, #"{"version":"5"}"#: 5]
            let streams = ["user-1", "nobody", "bob", "user-1"]
            try check(streams, limit: 1_000)
            try check(streams, limit: 2)
            try check(streams, limit: 0)
            for document in [#"{"version":7,"x":1}"#, #"{"version":40}"#, #"{"version":"5"}"#, #"[1,2,3]"#] {
                try plant(document, store)
                try check(streams, limit: 1_000)
                try check(["bob", "user-1"], limit: 3)
            }
            #expect(try store.snapshotsAndEvents(kind: DocumentSnapshots.kind, slot: 0, streams: [], limit: 10).isEmpty)
            #expect(throws: EventStoreError.self) { try store.snapshotsAndEvents(kind: DocumentSnapshots.kind, slot: 0, streams: ["user-1", ""], limit: 10) }
            #expect(throws: EventStoreError.self) { try store.snapshotsAndEvents(kind: "", slot: 0, streams: ["user-1"], limit: 10) }
        }
    }

    @Test("users that threads load at the same time are read together: while one read is under way the others wait, and the next read takes them all; each load decides as a full replay does")
    func concurrentLoadsReadTogether() throws {
        try withPostgres { store in
            let users = (0..<16).map { "u\($0)" }
            let writer = CommandRunner(store: store, cache: nil, snapshots: SameLogSnapshots(log: store), snapshotInterval: 5)
            for (index, user) in users.enumerated() {
                for step in 0..<(index % 9) { _ = try writer.handle(.search(Fixtures.search("k\(step)")), context: Fixtures.context(user: user)) }
                _ = try writer.handle(Fixtures.favorite("L\(index)"), context: Fixtures.context(user: user))
            }
            let log = RoundTripCountingLog(store)
            let fresh = CommandRunner(store: log, cache: nil, snapshots: SameLogSnapshots(log: log), snapshotInterval: 100)
            // The first read waits until every other thread is waiting for the next.
            let first = Atomic<Bool>(true)
            log.beforeReadingMany.withLock { hook in
                hook = { streams in
                    guard first.exchange(false, ordering: .relaxed) else { return }
                    let deadline = Date().addingTimeInterval(20)
                    while fresh.loads.waitingCount < users.count - streams.count, Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
                }
            }
            let loaded = Mutex<[String: LoadedUser]>([:])
            let group = DispatchGroup()
            for user in users {
                group.enter()
                Thread.detachNewThread {
                    #expect(throws: Never.self) {
                        let state = try fresh.load(user: user)
                        loaded.withLock { $0[user] = state }
                    }
                    group.leave()
                }
            }
            group.wait()
            let reads = log.taken().filter { $0.hasPrefix("snapshots") }
            #expect(reads.count == 2, "one read, then one for everyone who waited: \(reads)")
            #expect(reads.compactMap { Int($0.split(separator: " ").last ?? "") }.reduce(0, +) == users.count)
            for user in users {
                let truth = try replayed(user, store)
                let state = try #require(loaded.withLock { $0[user] })
                #expect(state.state == truth.state && state.version == truth.version && state.recentEventIDs == truth.recentEventIDs, "\(user)")
            }
        }
    }

    @Test("a user the runner does not hold is loaded in one round trip, with a snapshot or without")
    func oneRoundTrip() throws {
        try withPostgres { store in
            let log = RoundTripCountingLog(store)
            let writer = CommandRunner(store: log, cache: nil, snapshots: SameLogSnapshots(log: log), snapshotInterval: 5)
            _ = try writer.handle(Fixtures.favorite("A"), context: Fixtures.context())
            for index in 0..<11 { _ = try writer.handle(.search(Fixtures.search("k\(index)")), context: Fixtures.context()) }
            _ = try writer.handle(Fixtures.favorite("B"), context: Fixtures.context(user: "bob"))
            let snapshot = try #require(try DocumentSnapshots(store: store).latestSnapshot(stream: "user-1"))
            #expect(snapshot.version >= 5 && snapshot.version < 12)
            _ = log.taken()

            for user in ["user-1", "bob"] {   // with a snapshot, and without one
                let fresh = CommandRunner(store: log, cache: nil, snapshots: SameLogSnapshots(log: log), snapshotInterval: 100)
                let loaded = try fresh.load(user: user)
                #expect(log.taken() == ["snapshotsAndEvents 1"], "one statement for \(user)")
                let truth = try replayed(user, store)
                #expect(loaded.state == truth.state && loaded.version == truth.version && loaded.recentEventIDs == truth.recentEventIDs)
                #expect(loaded.lastEventHash == truth.lastEventHash && !loaded.lastEventHash.isEmpty)
            }
            // The same through the runner's command path: the decision's read is the one statement, then the append.
            let fresh = CommandRunner(store: log, cache: UserStateCache(), snapshots: SameLogSnapshots(log: log), snapshotInterval: 100)
            #expect(try fresh.handle(Fixtures.favorite("A"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "A")))
            #expect(log.taken() == ["snapshotsAndEvents 1"])
            #expect(try fresh.handle(Fixtures.favorite("C"), context: Fixtures.context()).isRecorded)
            #expect(log.taken() == ["read", "append"], "a cached user: the events since, then the append")
        }
    }

    @Test("random commands, new processes, erasures, planted stale, foreign and corrupt snapshots: every decision equals a full replay's")
    func property() throws {
        try withPostgres { store in
            var random = SplitMix64(seed: 23)
            let users = ["ada", "bob", "cy"]
            let listings = ["L1", "L2", "L3", "L4"]
            var taken: [Data] = []   // snapshots seen along the way, planted again later (stale, foreign, from before an erasure)
            for step in 0..<200 {
                let user = users[Int(random.next() % UInt64(users.count))]
                let listing = listings[Int(random.next() % UInt64(listings.count))]
                let command: UserCommand
                switch random.next() % 4 {
                case 0: command = .search(Fixtures.search("k\(step)"))
                case 1: command = .unfavorite(listingID: listing)
                default: command = Fixtures.favorite(listing)
                }
                try expectSameDecision(command, user: user, store, interval: 1 + Int(random.next() % 7))
                if let kept = try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: user) { taken.append(kept) }
                switch random.next() % 10 {
                case 0 where !taken.isEmpty:   // any earlier snapshot, of any user, under this user
                    let planted = taken[Int(random.next() % UInt64(taken.count))]
                    try plant(String(decoding: planted, as: UTF8.self), user: user, store)
                case 1, 2:   // the user's own snapshot changed without its check: another version, or another hash
                    let good = try store.snapshotDocument(kind: DocumentSnapshots.kind, slot: 0, stream: user).map { String(decoding: $0, as: UTF8.self) }
                    let (from, to) = random.next() % 2 == 0 ? (#""version":"#, #""version":1"#) : (#""lastEventHash":""#, #""lastEventHash":"0"#)
                    try plant(good?.replacingOccurrences(of: from, with: to) ?? #"{"version":2}"#, user: user, store)
                case 3 where step % 3 == 0:
                    _ = try store.erase(Erasure.Request(stream: user, reason: "test", operatorName: "t"))
                default: break
                }
            }
            #expect(!taken.isEmpty, "snapshots were saved along the way")
        }
    }
}
