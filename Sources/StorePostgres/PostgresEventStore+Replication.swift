import EventLog
import Foundation

/// Where a server is in the write-ahead log, for reading from hot standbys with
/// read-your-writes: the primary's position after a commit, and whether a standby has replayed
/// up to it (docs/REPLICAS.md).
extension PostgresEventStore {
    /// The primary's current write-ahead log position (`pg_current_wal_lsn()`), as text
    /// (`0/3000148`): every commit acknowledged before this call ends at or below it.
    /// - Throws: ``EventStoreError/unavailable(_:)`` on a standby, which has no position of
    ///   its own.
    public func writeAheadLogPosition() throws -> String {
        try withRetry { connection in
            let result = try connection.query("SELECT pg_current_wal_lsn()::text", types: [], binds: PostgresBinds())
            return result.string(row: 0, column: 0)
        }
    }

    /// Whether this server shows everything up to `position` of the primary's log: a standby
    /// that has replayed that far (`pg_last_wal_replay_lsn()`), or a server that is not in
    /// recovery (a primary, or a promoted standby, shows all it has).
    public func hasReplayed(through position: String) throws -> Bool {
        var binds = PostgresBinds()
        binds.append(text: position)
        return try withRetry { connection in
            let result = try connection.query(
                "SELECT CASE WHEN pg_is_in_recovery() THEN coalesce(pg_last_wal_replay_lsn() >= $1::text::pg_lsn, false) ELSE true END",
                types: [PostgresType.text], binds: binds)
            return try result.bool(row: 0, column: 0)
        }
    }
}
