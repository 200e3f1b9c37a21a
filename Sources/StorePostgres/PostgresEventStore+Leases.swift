import EventLog
import Foundation

extension PostgresEventStore: ProjectionLeasing {
    /// Leases are session advisory locks on a connection of their own: when the projector's
    /// process dies, the server closes the session and the lock is free for another.
    public func tryLease(_ projection: String) throws -> (any ProjectionLease)? {
        do {
            let connection = try PostgresConnection(conninfo: pool.conninfo)
            var binds = PostgresBinds()
            binds.append(int4: PostgresSchema.leaseLockClass)
            binds.append(text: schema.name + "/" + projection)
            let result = try connection.query(
                "SELECT pg_try_advisory_lock($1, hashtext($2))", types: [PostgresType.int4, PostgresType.text], binds: binds)
            guard try result.bool(row: 0, column: 0) else { return nil }
            return PostgresProjectionLease(connection: connection)
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
    }
}

/// A session advisory lock held on its own connection.
final class PostgresProjectionLease: ProjectionLease {
    private var connection: PostgresConnection?

    init(connection: PostgresConnection) { self.connection = connection }

    var isHeld: Bool { connection?.isHealthy ?? false }

    func release() {
        // Unlocked before the session closes: a closed session's locks are freed only once its
        // server process has ended, a moment after the client hung up, and a lease released
        // must be free for the next asker at once. When the unlock cannot run (the connection
        // broke), closing the session frees the lock all the same.
        if let connection, connection.isHealthy {
            _ = try? connection.execute("SELECT pg_advisory_unlock_all()")
        }
        connection = nil
    }

    deinit { release() }
}

@available(*, unavailable)
extension PostgresProjectionLease: Sendable {}
