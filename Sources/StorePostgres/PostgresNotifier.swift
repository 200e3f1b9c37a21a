import Foundation

/// Sends the NOTIFY that wakes ``PostgresFollower``s after appends, from a connection and a
/// thread of its own, at most once per `interval` however many appends commit meanwhile.
///
/// An append only records its last position here (no statement, no round trip); the
/// thread sends `pg_notify` with the highest position announced since its last one, then
/// waits `interval` before it sends again. A NOTIFY that fails (the server went away) is
/// dropped and the connection opened again for the next one: followers re-check the log
/// every second, so a lost notification only delays them. The thread starts with the first
/// announcement and ends when the store goes away, after sending what is pending: the store's
/// `deinit` waits for that (at most a second), so a short-lived process such as one
/// `evtool append` still wakes followers at once.
final class PostgresNotifier: @unchecked Sendable {
    // @unchecked: every mutable field is guarded by `condition`; the connection is only
    // used by the notifier's own thread.
    private let condition = NSCondition()
    private var pending: Int64?
    private var stopped = false
    private var started = false
    private var finished = false
    private let conninfo: String
    private let channel: String
    private let interval: TimeInterval

    /// - Parameters:
    ///   - conninfo: the store's libpq connection string.
    ///   - channel: the store's NOTIFY channel.
    ///   - interval: the shortest time between two notifications.
    init(conninfo: String, channel: String, interval: Duration = .milliseconds(2)) {
        self.conninfo = conninfo
        self.channel = channel
        self.interval = interval.timeInterval
    }

    /// Records that events up to `position` have committed; returns at once.
    func announce(_ position: Int64) {
        condition.lock()
        pending = max(pending ?? position, position)
        if !started {
            started = true
            let thread = Thread { [self] in run() }
            thread.name = "evtool-postgres-notifier"
            thread.start()
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Whether the thread has ended (after ``stop(timeout:)``; for tests).
    var isFinished: Bool {
        condition.lock(); defer { condition.unlock() }
        return finished
    }

    /// Sends what is pending, then ends the thread; waits for that up to `timeout`.
    func stop(timeout: TimeInterval = 1) {
        condition.lock()
        stopped = true
        condition.broadcast()
        let deadline = Date().addingTimeInterval(timeout)
        while started && !finished && condition.wait(until: deadline) {}
        condition.unlock()
    }

    private func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        defer { finish() }
        var connection: PostgresConnection?
        while true {
            condition.lock()
            while pending == nil && !stopped { condition.wait() }
            guard let position = pending else {
                condition.unlock()
                return   // stopped, nothing pending
            }
            pending = nil
            let last = stopped
            condition.unlock()
            do {
                if connection == nil {
                    let opened = try PostgresConnection(conninfo: conninfo)
                    // Each NOTIFY is its own transaction; it need not wait for the WAL flush.
                    _ = try opened.execute("SET synchronous_commit = off")
                    connection = opened
                }
                var binds = PostgresBinds()
                binds.append(text: channel)
                binds.append(text: String(position))
                _ = try connection?.query("SELECT pg_notify($1, $2)", types: [PostgresType.text, PostgresType.text], binds: binds)
            } catch {
                connection = nil   // dropped; followers re-check periodically
            }
            if last { return }
            Thread.sleep(forTimeInterval: interval)
        }
    }
}
