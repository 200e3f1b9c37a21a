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
