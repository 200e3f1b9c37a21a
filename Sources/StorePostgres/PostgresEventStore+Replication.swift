import EventLog
import Foundation

/// Where a server is in the write-ahead log, for reading from hot standbys with
/// read-your-writes: the primary's position after a commit, and whether a standby has replayed
/// up to it (docs/how-to/replicas.md).
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

/// Which cluster, database and schema a store lives in: a hot standby made with
/// `pg_basebackup` has its primary's system identifier, so two stores with the same identity
/// are the same log (one of them possibly a copy that replays the other).
public struct PostgresStoreIdentity: Sendable, Hashable, CustomStringConvertible {
    /// The cluster's `system_identifier` (`pg_control_system()`), shared by a primary and
    /// its streaming standbys.
    public var systemIdentifier: String
    /// The database (`current_database()`).
    public var database: String
    /// The schema holding the store's tables.
    public var schema: String
    /// Whether the server is a hot standby (`pg_is_in_recovery()`).
    public var isStandby: Bool

    public var description: String {
        "system identifier \(systemIdentifier), database '\(database)', schema '\(schema)'"
    }
}

extension PostgresEventStore {
    /// The store's identity: its cluster's system identifier, database and schema, and whether
    /// the server is a standby.
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the server cannot be reached.
    public func identity() throws -> PostgresStoreIdentity {
        try withRetry { connection in
            let result = try connection.query(
                "SELECT system_identifier::text, current_database()::text, pg_is_in_recovery() FROM pg_control_system()",
                types: [], binds: PostgresBinds())
            return PostgresStoreIdentity(systemIdentifier: result.string(row: 0, column: 0), database: result.string(row: 0, column: 1),
                                         schema: schemaName, isStandby: try result.bool(row: 0, column: 2))
        }
    }
}
