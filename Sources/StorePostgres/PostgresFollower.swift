import EventLog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Follows a store's log by position: waits for new events without polling in a loop, and
/// survives the server restarting.
///
/// The follower keeps one connection of its own that LISTENs on the store's channel; each
/// append sends a NOTIFY after it commits. Notifications only wake the follower: it always
/// re-reads the log by position, and it also re-checks every `recheckInterval`, so a lost
/// notification only delays it. When the connection breaks it reconnects with backoff and
/// carries on from ``position``: nothing is skipped or repeated.
///
/// On a hot standby (a read replica), which takes no LISTEN and gets no notifications, the
/// follower polls every ``standbyPollInterval`` instead; the read is the same, so the same
/// gap-safety rule holds (the standby's snapshot lists the primary's running transactions).
/// When the standby is promoted it starts listening.
///
/// Not thread-safe: use one follower from one thread at a time.
public final class PostgresFollower {
    /// The position of the last event returned by ``next(timeout:limit:)``.
    public private(set) var position: Int64
    /// How many times the follower had to reconnect (for monitoring and tests).
    public private(set) var reconnections = 0

    private let conninfo: String
    private let schema: PostgresSchema
    private let recheckInterval: Duration
    private var connection: PostgresConnection?
    private var listening = false
    private var everConnected = false
    /// How often a follower connected to a hot standby re-reads the log.
    public static let standbyPollInterval = Duration.milliseconds(10)
    private let clock = ContinuousClock()

    /// Makes a follower; it connects on first use.
    ///
    /// - Parameters:
    ///   - url: the store's URL (or libpq `key=value` string; empty uses PG* variables).
    ///   - schema: the store's schema name.
    ///   - position: the position of the last event already processed (0 for the start).
    ///   - recheckInterval: how often to re-read the log when no notification arrives.
    /// - Throws: ``EventStoreError/invalidInput(_:)`` for a bad schema name.
    public init(url: String, schema: String = "evtool", after position: Int64 = 0, recheckInterval: Duration = .seconds(1)) throws {
        do { self.schema = try PostgresSchema(name: schema) } catch { throw EventStoreError.invalidInput(String(describing: error)) }
        self.conninfo = url
        self.position = position
        self.recheckInterval = recheckInterval
    }

    /// Returns the next events after ``position`` (at most `limit`), waiting up to `timeout`
    /// for some to be committed; an empty array when none came in time. Advances ``position``.
    ///
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the server could not be reached
    ///   for the whole `timeout` (call again to keep trying; the position is kept), or when
    ///   the very first connection fails for a reason that retrying cannot fix.
    public func next(timeout: Duration, limit: Int = 1_000) throws -> [RecordedEvent] {
        let deadline = clock.now + timeout
        guard try waitForEvents(after: position, until: deadline) else { return [] }
        let events = try withConnection(until: deadline) { connection -> [RecordedEvent] in
            var binds = PostgresBinds()
            binds.append(int8: position)
            binds.append(int8: Int64(max(1, limit)))
            return try PostgresEventStore.readSafe(connection: connection, sql: schema.readAllSQL, binds: binds).events
        }
        if let last = events.last { position = last.position }
        return events
    }

    /// Waits until the log has an event after `position` that is safe to read.
    ///
    /// - Returns: true when there is one, false when `timeout` passed first.
    /// - Throws: ``EventStoreError/unavailable(_:)`` as ``next(timeout:limit:)`` does.
    public func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool {
        try waitForEvents(after: position, until: clock.now + timeout)
    }

    private func waitForEvents(after position: Int64, until deadline: ContinuousClock.Instant) throws -> Bool {
        var binds = PostgresBinds()
        binds.append(int8: position)
        binds.append(int8: 1)
        while true {
            // Returns nil while connected and nothing is there yet, after waiting a while.
            let found: Bool? = try withConnection(until: deadline) { connection -> Bool? in
                _ = try connection.consumeNotifications()   // wake-ups so far are covered by this read
                let (events, heldBack) = try PostgresEventStore.readSafe(connection: connection, sql: schema.readAllSQL, binds: binds)
                if !events.isEmpty { return true }
                let remaining = deadline - clock.now
                if remaining <= .zero { return false }
                // Held back by an older transaction that is still running: look again soon.
                // A standby sends no notifications: poll it.
                let idle = listening ? recheckInterval : Self.standbyPollInterval
                let pause = heldBack ? min(.milliseconds(2), remaining) : min(idle, remaining)
                try wait(on: connection, for: pause)
                try listenIfPromoted(connection)
                return nil
            }
            if let found { return found }
        }
    }

    /// Sleeps until the server sends something (a notification) or `duration` passes.
    private func wait(on connection: PostgresConnection, for duration: Duration) throws {
        var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(clamping: max(1, duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000))
        let ready = poll(&descriptor, 1, milliseconds)
        if ready > 0 { _ = try connection.consumeNotifications() }
    }

    /// Runs `body` on the follower's connection, (re)connecting with backoff (50 ms doubling
    /// to 2 s) until `deadline`; throws ``EventStoreError/unavailable(_:)`` when the server
    /// stayed unreachable until then.
    private func withConnection<T>(until deadline: ContinuousClock.Instant, _ body: (PostgresConnection) throws -> T) throws -> T {
        var backoff = Duration.milliseconds(50)
        var lastError: PostgresError?
        while true {
            do {
                let connection = try connected()
                return try body(connection)
            } catch let error as PostgresError where error.kind == .connectionLost || error.kind == .connectionFailed {
                connection = nil
                lastError = error
                // A first connection refused for a reason other than the server being down
                // (wrong password, missing database) will not fix itself: say so at once.
                if error.kind == .connectionFailed && !everConnected && !Self.isTransient(error) {
                    throw error.storeError(appending: false)
                }
            } catch let error as PostgresError {
                throw error.storeError(appending: false)
            }
            let remaining = deadline - clock.now
            if remaining <= .zero {
                throw (lastError ?? PostgresError(kind: .connectionFailed, sqlState: nil, message: "timed out", constraint: nil, sql: nil, server: nil))
                    .storeError(appending: false)
            }
            let pause = min(backoff, remaining)
            Thread.sleep(forTimeInterval: pause.timeInterval)
            backoff = min(backoff * 2, .seconds(2))
        }
    }

    /// The open connection, or a new one that LISTENs on the store's channel (unless the
    /// server is a hot standby).
    private func connected() throws -> PostgresConnection {
        if let connection { return connection }
        let fresh = try PostgresConnection(conninfo: conninfo)
        listening = false
        try listenIfPromoted(fresh)
        if everConnected { reconnections += 1 }
        everConnected = true
        connection = fresh
        return fresh
    }

    /// Starts listening once the server accepts it: at once on a primary, after promotion on
    /// a standby.
    private func listenIfPromoted(_ connection: PostgresConnection) throws {
        guard !listening, !connection.isHotStandby else { return }
        try connection.execute("LISTEN \"\(schema.channel)\"")
        listening = true
    }

    /// Whether a connection failure looks like a server that is down or restarting.
    private static func isTransient(_ error: PostgresError) -> Bool {
        let message = error.message.lowercased()
        return ["refused", "starting up", "shutting down", "no such file", "timeout", "timed out", "could not receive", "server closed", "recovery"]
            .contains(where: message.contains)
    }
}

@available(*, unavailable)
extension PostgresFollower: Sendable {}
