import Dispatch
import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// Reads that come while the store's connection is busy (a commit waiting for the disk) run on
/// reader connections instead of waiting for it, and see everything committed before them.
@Suite("SQLite: reads do not wait for the store's busy connection")
struct SQLiteReaderTests {
    /// Runs `reads` on this thread while another thread holds the store's connection, and
    /// lets it go after: a read that waited for it would never return, and the suite's time
    /// limit would fail the test instead of hanging the run.
    func whileConnectionIsHeld(_ store: SQLiteEventStore, _ reads: () throws -> Void) throws {
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let failure = Locked<String?>(nil)
        let holder = Thread {
            do {
                try store.withConnection { _ in
                    held.signal()
                    release.wait()
                }
            } catch {
                failure.withLock { $0 = "\(error)" }
                held.signal()
            }
        }
        holder.start()
        held.wait()
        defer { release.signal() }
        let holdFailure = failure.withLock { $0 }
        try #require(holdFailure == nil, "the connection could not be held: \(holdFailure ?? "")")
        try reads()
    }

    @Test("every kind of read answers while the connection is held, with what was committed before", .timeLimit(.minutes(1)))
    func readsBesideTheConnection() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let store = made.store
        let event = ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8))
        let position = try store.append(event, to: "user-1", expectedVersion: .noStream).positions.lowerBound
        try store.saveSnapshotDocument(Data(#"{"version":1}"#.utf8), kind: "decision", slot: 0, stream: "user-1")
        let status = try store.startGeneration(of: "favorites", version: 1)
        #expect(store.openReaders == 0, "one thread at a time: no reader is opened")

        try whileConnectionIsHeld(store) { () throws in
            #expect(try store.read(stream: "user-1", from: 1, direction: .forwards, limit: 10).map(\.position) == [position])
            #expect(try store.readAll(after: 0, limit: 10).map(\.position) == [position])
            var lent: [Int64] = []
            #expect(try store.scanAll(after: 0, limit: 10) { lent.append($0.position) } == 1)
            #expect(lent == [position])
            #expect(try store.events(withIDs: [event.id]).count == 1)
            #expect(try store.headPosition() == position)
            #expect(try store.version(of: "user-1") == 1)
            #expect(try store.snapshotDocument(kind: "decision", slot: 0, stream: "user-1") == Data(#"{"version":1}"#.utf8))
            #expect(try store.documents(of: "favorites", generation: status.generation, keys: ["a", "b"]).isEmpty)
            #expect(try store.documents(of: "favorites", generation: status.generation, after: "", limit: 5).isEmpty)
        }
        #expect(store.openReaders == 1, "the reads took turns on one reader, kept for the next")
    }

    @Test("a reader sees an append committed after it was opened; a reader writes nothing", .timeLimit(.minutes(1)))
    func readersFollowCommits() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let store = made.store
        _ = try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)), to: "user-1", expectedVersion: .noStream)
        try whileConnectionIsHeld(store) { () throws in
            #expect(try store.version(of: "user-1") == 1)
        }
        let second = ProposedEvent(type: "Searched", data: Data(#"{"keyword":"rock"}"#.utf8))
        _ = try store.append(second, to: "user-1", expectedVersion: .exactly(1))
        try whileConnectionIsHeld(store) { () throws in
            #expect(try store.version(of: "user-1") == 2)
            #expect(try store.read(stream: "user-1", from: 2, direction: .forwards, limit: 10).map(\.id) == [second.id])
        }
        #expect(store.openReaders == 1)
        // The reader is query-only: a write through it is refused by SQLite.
        try whileConnectionIsHeld(store) { () throws in
            #expect(throws: EventStoreError.self) {
                try store.withReadConnection { try $0.execute("DELETE FROM evtool_meta") }
            }
        }
    }

    @Test("an in-memory store has no readers: its database is its one connection's")
    func inMemoryHasNone() throws {
        let store = try SQLiteEventStore.inMemory()
        _ = try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)), to: "user-1", expectedVersion: .noStream)
        #expect(try store.read(stream: "user-1", from: 1, direction: .forwards, limit: 10).count == 1)
        #expect(store.openReaders == 0)
    }
}
