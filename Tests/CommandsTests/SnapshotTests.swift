import Commands
import EventLog
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite("Snapshots: the first command for a user with a long stream reads only the events since the last snapshot")
struct SnapshotTests {
    let log = InMemoryEventStore()
    let snapshotLog = InMemoryEventStore()

    func fill(_ runner: CommandRunner, searches: Int) throws {
        _ = try runner.handle(Fixtures.favorite("A"), context: Fixtures.context())
        for index in 0..<searches { _ = try runner.handle(.search(Fixtures.search("k\(index)")), context: Fixtures.context()) }
        _ = try runner.handle(Fixtures.favorite("B"), context: Fixtures.context())
    }

    @Test("given 252 events and snapshots every 100, a new process reads at most 99 events and decides right")
    func readsSinceSnapshot() throws {
        let snapshots = EventStoreSnapshots(store: snapshotLog)
        try fill(CommandRunner(store: log, snapshots: snapshots, snapshotInterval: 100), searches: 250)
        let latest = try #require(try snapshots.latestSnapshot(stream: "user-1"))
        #expect(latest.version == 200)
        #expect(try snapshotLog.version(of: "user-1") == 2, "one snapshot per 100 events")

        let counting = CountingStore(base: log)
        let restarted = CommandRunner(store: counting, cache: nil, snapshots: snapshots, snapshotInterval: 100)
        #expect(try restarted.handle(Fixtures.favorite("B"), context: Fixtures.context()) == .unchanged(.alreadyFavorite(listingID: "B")))
        #expect(try restarted.handle(.unfavorite(listingID: "A"), context: Fixtures.context()).isRecorded)
        // 200 again (to see that it was not erased since the snapshot), then 201…252.
        #expect(counting.eventsRead.withLock { $0 } == 53 + 53, "each command read events 200…252 only")
        #expect(try restarted.load(user: "user-1").state == UserState(favorites: ["B"]))
    }

    @Test("a snapshot that does not belong to this log (ahead of the stream) is dropped and the stream read whole")
    func foreignSnapshot() throws {
        let snapshots = EventStoreSnapshots(store: snapshotLog)
        var foreign = LoadedUser(version: 500, state: UserState(favorites: ["A"]))
        foreign.snapshotVersion = 500
        try snapshots.save(UserSnapshot(foreign), stream: "user-1")
        let runner = CommandRunner(store: log, snapshots: snapshots)
        _ = try runner.handle(.search(Fixtures.search()), context: Fixtures.context())
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded, "A was never a favorite in this log")
        #expect(try log.read(stream: "user-1").map(\.type) == ["Searched", "Favorited"])
    }

    @Test("an unreadable snapshot is skipped")
    func unreadableSnapshot() throws {
        _ = try snapshotLog.append(ProposedEvent(type: UserSnapshot.typeName, data: Data(#"{"schemaVersion":9}"#.utf8)),
                                   to: "user-1", expectedVersion: .any)
        let runner = CommandRunner(store: log, snapshots: EventStoreSnapshots(store: snapshotLog))
        #expect(try runner.handle(Fixtures.favorite("A"), context: Fixtures.context()).isRecorded)
    }

    @Test("a snapshot reads back equal")
    func roundTrip() throws {
        let snapshots = EventStoreSnapshots(store: snapshotLog)
        let loaded = LoadedUser(version: 7, state: UserState(favorites: ["b", "a"]), recentEventIDs: [UUID(), UUID()])
        try snapshots.save(UserSnapshot(loaded), stream: "u")
        let read = try #require(try snapshots.latestSnapshot(stream: "u"))
        #expect(read == UserSnapshot(loaded))
        #expect(read.loaded.state == loaded.state)
        #expect(read.favorites == ["a", "b"])
    }
}
