import EventLog
import Foundation

// MARK: - Partitions (schema 10, docs/explanation/scale.md "Partitions")

/// One partition of the events table: the positions `first ..< end` (`first` nil for the first
/// partition, which starts at the lowest position).
public struct EventPartition: Sendable, Equatable {
    /// The table's name, in the store's schema (`events_p` and its first position).
    public var name: String
    /// Its first position; nil for the first partition, which takes every position below `end`.
    public var first: Int64?
    /// The position after its last.
    public var end: Int64
}

/// How a store keeps its events table (schema 18, docs/explanation/scale.md "Layouts"),
/// chosen when the store is made.
public enum PostgresLayout: Sendable, Hashable, CustomStringConvertible {
    /// One table, the event id unique on it: a new store's default, the fastest appends. It
    /// cannot archive (an archived id must stay refused forever, which needs `event_ids`).
    case singleTable
    /// Range-partitioned by position, `partitions` partitions of `size` positions made ahead of
    /// the head, each event id also kept in `event_ids`: what archive needs.
    case partitioned(partitions: Int, size: Int64)

    /// "single table", or "partitioned by position, N partitions of SIZE positions".
    public var description: String {
        switch self {
        case .singleTable: "single table"
        case .partitioned(let partitions, let size):
            "partitioned by position, \(partitions) partition\(partitions == 1 ? "" : "s") of \(size) positions"
        }
    }

    /// `single` or `partitioned`, as `evtool stats --json` names it.
    public var name: String {
        switch self {
        case .singleTable: "single"
        case .partitioned: "partitioned"
        }
    }
}

extension PostgresEventStore {
    /// The store's layout, from the catalog. Cost: O(partitions).
    public func layout() throws -> PostgresLayout {
        try withRetry { connection in try Self.layout(schema: schema, on: connection) }
    }

    static func layout(schema: PostgresSchema, on connection: PostgresConnection) throws -> PostgresLayout {
        let result = try connection.query("""
            SELECT (c.relkind = 'p')::integer::bigint, (SELECT count(*) FROM \(schema.quoted).event_partitions()),
                   coalesce((SELECT p.size FROM \(schema.quoted).partitioning p WHERE p.id = 1), 0)
            FROM pg_catalog.pg_class c WHERE c.oid = '\(schema.quoted).events'::regclass
            """, types: [], binds: PostgresBinds())
        guard result.rowCount == 1, try result.int64(row: 0, column: 0) == 1 else { return .singleTable }
        return .partitioned(partitions: Int(try result.int64(row: 0, column: 1)), size: try result.int64(row: 0, column: 2))
    }

    /// Refuses an archive on the single-table layout, whose event ids are unique only among the
    /// events the table holds: an archived event's id could be appended again.
    public func checkCanArchive() throws {
        guard try layout() == .singleTable else { return }
        throw EventStoreError.invalidInput(Self.singleTableArchiveRefusal(schema: schema.name))
    }

    static func singleTableArchiveRefusal(schema: String) -> String {
        "the store in schema '\(schema)' has the single-table layout, which cannot archive: an archive removes events from the table, and their ids must stay refused forever, which only the partitioned layout keeps (event_ids). Make a store with partitions (evtool init --partition-size N, in a new schema), copy this log into it with evtool migrate, and archive that one; nothing was archived"
    }
}

extension PostgresEventStore {
    /// How long the archive's transaction waits for the lock a detach takes (every reader and
    /// append of the events table holds one that conflicts, for the length of a statement).
    static let archiveLockTimeout = "5s"

    /// The events table's partitions, in position order. Cost: O(partitions), from the catalog.
    public func partitions() throws -> [EventPartition] {
        try withRetry { connection in try Self.partitions(schema: schema, on: connection) }
    }

    /// The size (in positions) of the partitions made from now on.
    public func partitionSize() throws -> Int64 {
        try withRetry { connection in
            let result = try connection.query("SELECT size FROM \(schema.quoted).partitioning WHERE id = 1", types: [], binds: PostgresBinds())
            guard result.rowCount == 1 else { throw EventStoreError.corrupt("the store records no partition size (\(schema.name).partitioning is empty)") }
            return try result.int64(row: 0, column: 0)
        }
    }

    static func partitions(schema: PostgresSchema, on connection: PostgresConnection) throws -> [EventPartition] {
        let result = try connection.query("SELECT name, first_position, end_position FROM \(schema.quoted).event_partitions()",
                                          types: [], binds: PostgresBinds())
        return try (0..<result.rowCount).map { row in
            EventPartition(name: result.string(row: row, column: 0),
                           first: result.isNull(row: row, column: 1) ? nil : try result.int64(row: row, column: 1),
                           end: try result.int64(row: row, column: 2))
        }
    }

    /// Detaches and drops every partition wholly below `position`, in the caller's transaction.
    /// - Returns: the partitions dropped.
    @discardableResult
    func dropPartitions(below position: Int64, on connection: PostgresConnection) throws -> [EventPartition] {
        let below = try Self.partitions(schema: schema, on: connection).filter { $0.end <= position }
        for partition in below {
            // The name comes from the catalog; quoted as an identifier all the same.
            let name = "\"" + partition.name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            _ = try connection.execute("ALTER TABLE \(schema.quoted).events DETACH PARTITION \(schema.quoted).\(name)")
            _ = try connection.execute("DROP TABLE \(schema.quoted).\(name)")
        }
        return below
    }
}
