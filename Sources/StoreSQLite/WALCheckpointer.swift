import CSQLite
import Dispatch
import Foundation

/// Copies the write-ahead log back into the database file on a thread of its own, so that no
/// commit waits for it.
///
/// SQLite's own rule checkpoints inside the commit that takes the WAL past 1,000 pages: that
/// commit copies the log into the file and flushes the file before it returns, and every
/// commit behind it waits. Under `evtool serve`'s group commits that was the tail of the
/// write latency: in alternating runs on a grown store, the p99 of a `PUT` went from 32–34 ms
/// to 19–20 ms, and the rate rose 18%, with the checkpoints moved here.
///
/// The store's connection reports each commit's WAL size (`sqlite3_wal_hook`, which replaces
/// the automatic checkpoint); from ``pages`` on, this thread runs a passive checkpoint on a
/// connection of its own: it copies what no reader still needs and waits for no one, as the
/// automatic one does. Should the log still reach ``inlinePages`` (writes that never pause
/// outrun the thread), the committing connection checkpoints itself, as SQLite's rule does at
/// 1,000 pages. Started when first needed; ``stop()`` ends it (the store's `deinit`).
final class WALCheckpointer: @unchecked Sendable {
    /// The WAL size, in pages, from which a commit asks for a checkpoint (SQLite's own default).
    static let pages: Int32 = 1_000

    private let path: String
    private let condition = NSCondition()
    private var wanted = false
    private var stopped = false
    private var started = false
    private var completedCount = 0
    private let finished = DispatchSemaphore(value: 0)
    // Held while a checkpoint runs, and by `withoutCheckpoints`.
    private let running = NSLock()

    /// A checkpointer of the store file at `path`.
    init(path: String) { self.path = path }

    /// How many checkpoints it has run (each copied what no reader still needed).
    var completed: Int {
        condition.lock()
        defer { condition.unlock() }
        return completedCount
    }

    /// Asks for a checkpoint (one runs after the current one, however often it is asked).
    func wake() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped else { return }
        wanted = true
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "evtool-wal-checkpoint"
            thread.start()
        }
        condition.signal()
    }

    /// Runs `body` while this thread runs no checkpoint (after the one it is running, if
    /// any). A checkpoint that must finish, `compact`'s `TRUNCATE` on the store's connection,
    /// would otherwise find the log's checkpoint lock taken by this thread and give up.
    func withoutCheckpoints<T>(_ body: () throws -> T) rethrows -> T {
        running.lock()
        defer { running.unlock() }
        return try body()
    }

    /// Ends the thread after the checkpoint it is running, if any.
    func stop() {
        condition.lock()
        stopped = true
        let wasStarted = started
        condition.signal()
        condition.unlock()
        if wasStarted { finished.wait() }
    }

    /// The WAL size, in pages, from which the committing connection checkpoints itself, as
    /// SQLite's automatic checkpoint does at ``pages``. The log starts again from its
    /// beginning only when a write finds it wholly copied: under writes that never pause,
    /// each of this thread's checkpoints may end behind the last commit, and this bounds the log.
    static let inlinePages: Int32 = 16_000

    /// Makes `connection` ask this checkpointer, instead of checkpointing in its commits.
    /// The checkpointer must outlive the hook: the store removes it before stopping it.
    func install(on connection: SQLiteConnection) {
        sqlite3_wal_hook(connection.handle, { context, db, name, pages in
            if pages >= WALCheckpointer.inlinePages {
                _ = sqlite3_wal_checkpoint_v2(db, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            } else if pages >= WALCheckpointer.pages, let context {
                Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().wake()
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// The checkpoint's connection, once it has read the file: a connection that has not yet
    /// read does not know the file is in WAL mode, and its checkpoint does nothing.
    private static func open(_ path: String) -> SQLiteConnection? {
        guard let connection = try? SQLiteConnection(path: path, create: false),
              (try? connection.scalarInt("SELECT count(*) FROM sqlite_schema")) != nil else { return nil }
        return connection
    }

    private func run() {
        var connection: SQLiteConnection?
        while true {
            condition.lock()
            while !wanted && !stopped { condition.wait() }
            if stopped {
                condition.unlock()
                break
            }
            wanted = false
            condition.unlock()
            if connection == nil { connection = Self.open(path) }
            // A failed checkpoint (the file gone, no memory) leaves the log to the next one.
            var logPages: Int32 = -1
            running.lock()
            let code = connection.map { sqlite3_wal_checkpoint_v2($0.handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logPages, nil) }
            running.unlock()
            if code == SQLITE_OK, logPages >= 0 {
                condition.lock()
                completedCount += 1
                condition.unlock()
            }
        }
        connection = nil
        finished.signal()
    }
}
