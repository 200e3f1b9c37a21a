import Dispatch
import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// The WAL is copied back into the database file by the store's checkpointer thread, not in
/// the commit that fills it (``WALCheckpointer``).
@Suite("SQLite: the WAL is checkpointed beside the commits")
struct SQLiteCheckpointTests {
    /// The size of the file at `path`; a missing file fails the test (a log that is not
    /// there would pass every bound on its size).
    static func fileBytes(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int, "no size for \(path)")
    }

    /// Appends batches of 500 events of about `size` bytes each until `done` holds (at most `limit` batches).
    static func append(to store: SQLiteEventStore, batches limit: Int, from start: Int = 0, size: Int = 1_000, until done: () -> Bool) throws -> Int {
        let padding = String(repeating: "x", count: size)
        var batch = start
        while batch < start + limit, !done() {
            let events = (0..<500).map { ProposedEvent(type: "Searched", data: Data(#"{"keyword":"k\#(batch)-\#($0)","pad":"\#(padding)"}"#.utf8)) }
            _ = try store.append(events, to: "user-\(batch)", expectedVersion: .noStream)
            batch += 1
        }
        return batch
    }

    @Test("past 1,000 pages of log the checkpointer copies it into the file while the store stays open, and the log is reused", .timeLimit(.minutes(2)))
    func checkpointsBesideTheCommits() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let store = made.store
        let emptyFile = try Self.fileBytes(made.path)
        #expect(store.checkpointsRun == 0)
        // About 4 MB of log a checkpoint: append until one has run, then 30 MB more.
        var batches = try Self.append(to: store, batches: 400) { store.checkpointsRun >= 1 }
        #expect(store.checkpointsRun >= 1, "\(batches) batches of 500 events and no checkpoint")
        #expect(try Self.fileBytes(made.path) > emptyFile + (2 << 20), "the checkpoint copied the log into the file")
        batches = try Self.append(to: store, batches: 60, from: batches) { false }
        #expect(store.checkpointsRun >= 2)
        // Commits after a whole checkpoint write the log from its start again: its file stays
        // far smaller than everything appended (which it holds when nothing checkpoints).
        #expect(try Self.fileBytes(made.path + "-wal") < batches * 500 * 1_000 / 2)
        #expect(try store.readAll(after: 0, limit: 1_000_000).count == batches * 500)
    }

    @Test("a store let go stops its checkpointer; the file opens again with every event", .timeLimit(.minutes(2)))
    func stopsWithTheStore() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        var batches = 0
        do {
            let store = try made.open()
            batches = try Self.append(to: store, batches: 400) { store.checkpointsRun >= 1 }
            #expect(store.checkpointsRun >= 1)
            batches = try Self.append(to: store, batches: 3, from: batches) { false }
        }
        let reopened = try made.open()
        #expect(try reopened.readAll(after: 0, limit: 1_000_000).count == batches * 500)
        #expect(try reopened.version(of: "user-\(batches - 1)") == 500)
    }

    @Test("should the thread not keep up, the committing connection checkpoints at 16,000 pages: the log stays bounded", .timeLimit(.minutes(3)))
    func boundedWithoutTheThread() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let store = made.store
        store.stopCheckpointerThread()
        // 500 events of about 4 KiB a batch: 50 batches are about 100 MB of log, over 24,000 pages.
        let batches = try Self.append(to: store, batches: 50, size: 4_000) { false }
        #expect(store.checkpointsRun == 0)
        // 16,000 pages of 4 KiB, and the batch that crossed them: not the 120 MB of log that
        // the batches write with no checkpoint at all.
        #expect(WALCheckpointer.inlinePages == 16_000)
        let log = try Self.fileBytes(made.path + "-wal")
        #expect(log < 80 << 20, "the log grew to \(log) bytes")
        #expect(try Self.fileBytes(made.path) > 50 << 20, "the checkpoints copied the log into the file")
        #expect(try store.readAll(after: 0, limit: 1_000_000).count == batches * 500)
    }

    @Test("compact empties the log while the checkpointer is asked for checkpoints all the time", .timeLimit(.minutes(2)))
    func compactBesideTheCheckpointer() throws {
        let made = try TestStores.sqliteFile()
        defer { made.cleanup() }
        let store = made.store
        let done = Locked(false), stopped = DispatchSemaphore(value: 0)
        let asking = Thread {
            while !done.withLock({ $0 }) { store.requestCheckpoint() }
            stopped.signal()
        }
        asking.start()
        defer { done.withLock { $0 = true }; stopped.wait() }
        var batches = 0
        for round in 0..<20 {
            batches = try Self.append(to: store, batches: 1, from: batches) { false }
            #expect(try store.compact(), "round \(round): the log was not emptied")
        }
        #expect(store.checkpointsRun > 0, "the checkpointer ran beside the compactions")
        #expect(try Self.fileBytes(made.path + "-wal") == 0)
    }
}
