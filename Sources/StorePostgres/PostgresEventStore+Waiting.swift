import EventLog
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension PostgresEventStore {
    /// Waits until the log has an event after `position` that ``readAll(after:limit:)``
    /// would return, or `timeout` passes.
    ///
    /// A pooled connection LISTENs on the store's channel while it waits, so an append wakes
    /// it at once; it also re-reads every second, so a lost notification only delays it.
    /// When the server goes away it reconnects with backoff until `timeout`. On a hot
    /// standby, which takes no LISTEN, it re-reads every
    /// ``PostgresFollower/standbyPollInterval`` instead.
    ///
    /// - Returns: whether there are such events.
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the server could not be reached
    ///   before `timeout` passed.
    public func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        var binds = PostgresBinds()
        binds.append(int8: position)
        binds.append(int8: 1)
        var backoff = Duration.milliseconds(50)
        while true {
            let lease: ConnectionPool.Lease
            do {
                lease = try pool.take()
            } catch let error as PostgresError {
                if clock.now >= deadline { throw error.storeError(appending: false) }
                Self.sleep(min(backoff, deadline - clock.now))
                backoff = min(backoff * 2, .seconds(2))
                continue
            }
            let connection = lease.connection
            do {
                let listening = !connection.isHotStandby
                if listening { try connection.execute("LISTEN \"\(schema.channel)\"") }
                let found = try waitListening(on: connection, binds: binds, until: deadline, clock: clock, idle: listening ? .seconds(1) : PostgresFollower.standbyPollInterval)
                if listening { try connection.execute("UNLISTEN *") }
                _ = try connection.consumeNotifications()   // drop wake-ups that came meanwhile
                pool.giveBack(lease)
                return found
            } catch let error as PostgresError where error.kind == .connectionLost {
                // The server went away: try again on a new connection until the deadline.
                pool.drain()
                if clock.now >= deadline { throw error.storeError(appending: false) }
                Self.sleep(min(backoff, deadline - clock.now))
                backoff = min(backoff * 2, .seconds(2))
            } catch let error as PostgresError {
                // Stop listening before the connection serves other callers (or drop it).
                if connection.isHotStandby || (try? connection.execute("UNLISTEN *")) != nil { pool.giveBack(lease) }
                throw error.storeError(appending: false)
            }
        }
    }

    private func waitListening(
        on connection: PostgresConnection, binds: PostgresBinds, until deadline: ContinuousClock.Instant, clock: ContinuousClock,
        idle: Duration
    ) throws -> Bool {
        while true {
            _ = try connection.consumeNotifications()
            let (events, heldBack) = try Self.readSafe(connection: connection, sql: schema.readAllSQL, binds: binds)
            if !events.isEmpty { return true }
            let remaining = deadline - clock.now
            if remaining <= .zero { return false }
            // Held back by an older transaction that is still running: look again soon.
            let pause = heldBack ? min(.milliseconds(2), remaining) : min(idle, remaining)
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, Self.milliseconds(pause))
        }
    }

    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: max(1, seconds * 1_000 + attoseconds / 1_000_000_000_000_000))
    }

    static func sleep(_ duration: Duration) {
        Thread.sleep(forTimeInterval: duration.timeInterval)
    }
}
