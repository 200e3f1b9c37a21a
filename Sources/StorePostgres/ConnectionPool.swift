import Foundation
import Synchronization

/// A small pool of idle connections to one server, shared by the threads of one store.
///
/// A connection is only ever used by the one caller that took it out of the pool, so it
/// never crosses threads while in use; the pool itself is guarded by a mutex.
final class ConnectionPool: Sendable {
    /// Holds idle connections while no thread uses them.
    ///
    /// `@unchecked Sendable` is safe because a connection inside the box is idle: the mutex
    /// gives it to exactly one caller at a time, which owns it until it puts it back.
    private struct Idle: @unchecked Sendable {
        var connections: [PostgresConnection] = []
    }

    /// A connection lent to one caller.
    ///
    /// `@unchecked Sendable` for the same reason as ``Idle``: one owner at a time.
    struct Lease: @unchecked Sendable {
        let connection: PostgresConnection
    }

    let conninfo: String
    private let maximumIdle: Int
    private let idle = Mutex(Idle())

    /// Makes an empty pool; connections are opened on demand.
    init(conninfo: String, maximumIdle: Int) {
        self.conninfo = conninfo
        self.maximumIdle = maximumIdle
    }

    /// Takes an idle, healthy connection or opens a new one.
    /// - Throws: ``PostgresError`` when a new connection cannot be opened.
    func take() throws -> Lease {
        while let lease = idle.withLock({ box -> Lease? in box.connections.popLast().map(Lease.init) }) {
            // Read the results of any statement sent without waiting (`send`), so that the
            // caller's statement is the next one on the wire.
            if lease.connection.isHealthy, (try? lease.connection.drainPending()) != nil { return lease }
            // A connection the server closed while it sat idle (restart, terminate): drop it.
        }
        return Lease(connection: try PostgresConnection(conninfo: conninfo))
    }

    /// Puts a connection back, or closes it when the pool is full.
    func giveBack(_ lease: Lease) {
        let spare: Lease? = idle.withLock { box in
            if box.connections.count < maximumIdle {
                box.connections.append(lease.connection)
                return nil
            }
            return lease
        }
        _ = spare   // closed here, outside the lock
    }

    /// Closes every idle connection (e.g. after the server restarted).
    func drain() {
        let drained = idle.withLock { box -> Idle in
            let old = box
            box = Idle()
            return old
        }
        _ = drained
    }

    /// Runs `body` with a connection and returns it to the pool afterwards, unless the
    /// connection broke.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let lease = try take()
        do {
            let value = try body(lease.connection)
            giveBack(lease)
            return value
        } catch let error as PostgresError where error.kind == .connectionLost {
            throw error
        } catch {
            giveBack(lease)
            throw error
        }
    }
}
