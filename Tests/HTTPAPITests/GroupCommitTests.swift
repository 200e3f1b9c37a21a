import EventLog
import EvtoolKit
import Foundation
import StoreSQLite
import Synchronization
import Testing
import TestSupport

/// Group commit on a real SQLite file and a real PostgreSQL schema: appends that arrive while a
/// commit is in flight go into the next transaction together, each with its own version check
/// and its own outcome.
struct GroupCommitTests {
    /// A store whose first multi-stream commit takes a second, so that the other writers queue up.
    final class SlowFirstCommit: ForwardingMultiStreamStore, @unchecked Sendable {
        let calls = Atomic<Int>(0)
        /// Multi-stream commits running now, and the most that ever ran at once.
        let inFlight = Atomic<Int>(0)
        let mostInFlight = Atomic<Int>(0)
        override func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
            let running = inFlight.add(1, ordering: .acquiringAndReleasing).newValue
            defer { inFlight.subtract(1, ordering: .acquiringAndReleasing) }
            mostInFlight.max(running, ordering: .acquiringAndReleasing)
            if calls.add(1, ordering: .acquiringAndReleasing).oldValue == 0 { Thread.sleep(forTimeInterval: 1) }
            return try base.append(parts)
        }
    }

    static func event(_ id: UUID = UUID.timeOrdered()) -> ProposedEvent {
        ProposedEvent(id: id, type: "Test", data: Data(#"{"n":1}"#.utf8), metadata: Data("{}".utf8))
    }

    /// Starts the first append (which holds the commit for a second), then `others` at once.
    static func race(_ store: GroupCommitStore, first: StreamAppend, others: [StreamAppend]) -> [Result<AppendResult, any Error>] {
        let results = Mutex([Int: Result<AppendResult, any Error>]())
        let group = DispatchGroup()
        for (index, part) in ([first] + others).enumerated() {
            group.enter()
            Thread.detachNewThread {
                let result = Result { try store.append(part.events, to: part.stream, expectedVersion: part.expectedVersion) }
                results.withLock { $0[index] = result }
                group.leave()
            }
            if index == 0 { Thread.sleep(forTimeInterval: 0.2) }   // the first one leads and holds the commit
        }
        group.wait()
        return results.withLock { dictionary in (0...others.count).map { dictionary[$0]! } }
    }

    /// The stores group commit runs on: a fresh SQLite file or PostgreSQL schema, and its cleanup.
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
        func make() throws -> (store: any MultiStreamAppending, cleanup: () -> Void) {
            switch self {
            case .sqlite:
                let file = try TestStores.sqliteFile()
                return (file.store, file.cleanup)
            case .postgres:
                let postgres = try TestStores.postgres()
                return (postgres.store, postgres.cleanup)
            }
        }
    }

    /// Every event in the log (PostgreSQL may leave gaps in positions where a transaction rolled back).
    static func count(_ store: any EventStore) throws -> Int { try store.readAll(after: 0, limit: 1_000).count }

    @Test(arguments: Kind.allCases) func concurrentAppendsShareOneTransaction(kind: Kind) throws {
        let file = try kind.make()
        defer { file.cleanup() }
        let grouped = GroupCommitStore(base: SlowFirstCommit(file.store))
        let others = (1...15).map { StreamAppend(stream: "user-\($0)", expectedVersion: .noStream, events: [Self.event()]) }
        let results = Self.race(grouped, first: StreamAppend(stream: "user-0", expectedVersion: .noStream, events: [Self.event()]), others: others)
        let positions = try results.map { try $0.get().positions.lowerBound }
        #expect(Set(positions).count == 16)
        #expect(try Self.count(file.store) == 16)
        let statistics = grouped.statistics
        #expect(statistics.appends == 16 && statistics.commits == 2, "the 15 that queued behind the first went in one transaction: \(statistics)")
    }

    /// With the commits a server allows at once on PostgreSQL (``GroupCommitStore/parallelCommits``,
    /// two), the appends that queue behind a slow commit (one waiting for another server's lock)
    /// are committed beside it, except the one to the stream it is committing: that one waits
    /// for it and is checked against the version it leaves.
    @Test(arguments: Kind.allCases) func concurrentCommitsKeepAStreamInOneAtATime(kind: Kind) throws {
        let file = try kind.make()
        defer { file.cleanup() }
        let slow = SlowFirstCommit(file.store)
        let grouped = GroupCommitStore(base: slow, maximumConcurrentCommits: GroupCommitStore.parallelCommits)
        var others = (1...14).map { StreamAppend(stream: "user-\($0)", expectedVersion: .noStream, events: [Self.event()]) }
        others.insert(StreamAppend(stream: "user-0", expectedVersion: .exactly(1), events: [Self.event()]), at: 7)
        let results = Self.race(grouped, first: StreamAppend(stream: "user-0", expectedVersion: .noStream, events: [Self.event()]), others: others)
        for (index, result) in results.enumerated() {
            if case .failure(let error) = result { Issue.record("append \(index) failed: \(error)") }
        }
        #expect(try results[8].get().streamVersion == 2, "user-0's second append went in after its first")
        #expect(try file.store.version(of: "user-0") == 2)
        #expect(try Self.count(file.store) == 16)
        #expect(slow.mostInFlight.load(ordering: .acquiring) == 2, "the others were committed while the slow first commit was in flight")
    }

    @Test(arguments: Kind.allCases) func oneAppendsConflictOrDuplicateFailsOnlyItself(kind: Kind) throws {
        let file = try kind.make()
        defer { file.cleanup() }
        let taken = UUID.timeOrdered()
        try file.store.append([Self.event(taken)], to: "earlier", expectedVersion: .noStream)
        let grouped = GroupCommitStore(base: SlowFirstCommit(file.store))
        var others = (1...6).map { StreamAppend(stream: "user-\($0)", expectedVersion: .noStream, events: [Self.event()]) }
        others.insert(StreamAppend(stream: "earlier", expectedVersion: .exactly(7), events: [Self.event()]), at: 2)
        others.insert(StreamAppend(stream: "dup", expectedVersion: .noStream, events: [Self.event(taken)]), at: 4)
        let results = Self.race(grouped, first: StreamAppend(stream: "user-0", expectedVersion: .noStream, events: [Self.event()]), others: others)
        for (index, result) in results.enumerated() {
            switch (index, result) {
            case (3, .failure(EventStoreError.wrongExpectedVersion(let stream, _, let actual))):
                #expect(stream == "earlier" && actual == 1)
            case (5, .failure(EventStoreError.duplicateEventID(let id))):
                #expect(id == taken)
            case (3, _), (5, _):
                Issue.record("append \(index) should have failed on its own: \(result)")
            case (_, .failure(let error)):
                Issue.record("append \(index) failed with its neighbour's error: \(error)")
            case (_, .success):
                break
            }
        }
        #expect(try Self.count(file.store) == 1 + 7, "the seven good appends are in, the two bad ones not")
        #expect(try file.store.version(of: "earlier") == 1)
        #expect(try file.store.version(of: "dup") == 0)
    }
}
