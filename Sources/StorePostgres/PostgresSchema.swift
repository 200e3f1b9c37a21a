import Foundation

/// The database objects of one store, in a schema of the user's choosing, and the SQL that
/// installs and upgrades them.
struct PostgresSchema: Sendable {
    /// The newest schema version this release knows.
    static var currentVersion: Int { PostgresMigration.all.count }

    /// The schema name, checked to be a plain lowercase identifier.
    let name: String
    /// The schema name quoted for SQL text.
    let quoted: String
    /// A 32-bit key derived from the name; advisory locks of different schemas do not collide.
    let lockKey: Int32

    /// First half of the two-key advisory locks: `evt` and a lock number. Appends take no
    /// advisory lock since version 4 (any role can take one); `0x6576_7402` was the
    /// reservation's before that (in the frozen text of versions 1–3).
    static let installLockClass: Int32 = 0x6576_7401
    static let leaseLockClass: Int32 = 0x6576_7403
    static let viewCommitLockClass: Int32 = 0x6576_7404

    /// Checks and wraps a schema name.
    /// - Throws: ``EventLog/EventStoreError/invalidInput(_:)`` unless the name is 1…63
    ///   characters of `a-z`, `0-9` and `_`, not starting with a digit.
    init(name: String) throws {
        let bytes = Array(name.utf8)
        let valid = !bytes.isEmpty && bytes.count <= 63 && !(bytes[0] >= UInt8(ascii: "0") && bytes[0] <= UInt8(ascii: "9"))
            && bytes.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
        guard valid, !name.hasPrefix("pg_") else {
            throw PostgresSchemaNameError(name: name)
        }
        self.name = name
        self.quoted = "\"\(name)\""
        // FNV-1a: stable across processes and releases (Swift's Hasher is seeded per process).
        var hash: UInt32 = 2_166_136_261
        for byte in bytes { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        self.lockKey = Int32(bitPattern: hash)
    }

    /// The NOTIFY channel on which appends to this schema are announced.
    var channel: String { "evtool_\(name)" }

    // MARK: - Migrations

    /// The SQL that takes the schema from version `index` to `index + 1`: each frozen
    /// migration's text (``PostgresMigration``) with this schema's name put in. Lazy: each
    /// step's text is made when it is read, so an install reads each step's once (the whole
    /// list made on every read cost a new store 17 × 17 renderings of the templates).
    var migrations: LazyMapCollection<[PostgresMigration], String> {
        PostgresMigration.all.lazy.map { $0.sql(schema: self) }
    }

    // MARK: - Statements

    var appendSQL: String {
        "SELECT status, failed_part, actual_version, stream_versions, first_position, chain_hashes FROM \(quoted).append_returning_hashes($1, $2, $3, $4, $5, $6, $7, $8, $9)"
    }
    static let appendTypes: [UInt32] = [
        PostgresType.textArray, PostgresType.int4Array, PostgresType.int8Array, PostgresType.int4Array,
        PostgresType.uuidArray, PostgresType.textArray, PostgresType.jsonArray, PostgresType.jsonArray,
        PostgresType.timestamptzArray,
    ]

    /// A batch holding events copied erased (schema version 15, the owner only): ``appendSQL``'s
    /// columns, and for each event its kept digests (hex, empty when not erased) and its
    /// erasure's `UserErased` id (NULL when not erased).
    var appendCopiedSQL: String {
        "SELECT status, failed_part, actual_version, stream_versions, first_position, chain_hashes FROM \(quoted).append_copied($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)"
    }
    static let appendCopiedTypes: [UInt32] = appendTypes + [PostgresType.textArray, PostgresType.textArray, PostgresType.uuidArray]

    /// One event to one stream (schema version 5): the same columns as ``appendSQL`` but the
    /// chain hashes (the follower reads one row back).
    var appendOneSQL: String {
        "SELECT status, failed_part, actual_version, stream_versions, first_position FROM \(quoted).append_one($1, $2, $3, $4, $5, $6, $7, $8)"
    }
    static let appendOneTypes: [UInt32] = [
        PostgresType.text, PostgresType.int4, PostgresType.int8, PostgresType.uuid,
        PostgresType.text, PostgresType.json, PostgresType.json, PostgresType.timestamptz,
    ]

    var columns: String { "position, stream_id, version, event_id, type, data, metadata, recorded_at, hash" }

    /// Rows after a position, each with whether it is safe to hand out (see docs/explanation/ordering.md).
    var readAllSQL: String {
        """
        SELECT \(columns), tx_id < (SELECT pg_snapshot_xmin(pg_current_snapshot())) \
        FROM \(quoted).events WHERE position > $1 ORDER BY position LIMIT $2
        """
    }
    var readForwardsSQL: String {
        "SELECT \(columns) FROM \(quoted).events WHERE stream_id = $1 AND version >= $2 ORDER BY version LIMIT $3"
    }
    var readBackwardsSQL: String {
        "SELECT \(columns) FROM \(quoted).events WHERE stream_id = $1 AND version <= $2 ORDER BY version DESC LIMIT $3"
    }
    /// A stream whose events were all archived has its archived head's version (schema 9).
    var versionSQL: String {
        """
        SELECT coalesce((SELECT max(version) FROM \(quoted).events WHERE stream_id = $1), \
        (SELECT version FROM \(quoted).archived_heads WHERE stream_id = $1), 0)::bigint
        """
    }
    var headSQL: String {
        "SELECT coalesce(max(position), 0)::bigint FROM \(quoted).events"
    }
    /// The ids of `$1` that are in the log, archived ones included (schema 10: `event_ids`,
    /// every id ever appended, since the partitioned events table has no unique index on it).
    var existingIDsSQL: String {
        "SELECT event_id FROM \(quoted).event_ids WHERE event_id = ANY($1)"
    }
    /// The events with the ids of `$1` that the events table holds (not the archived ones):
    /// found by position through `event_ids`, so that only their partitions are read.
    var eventsWithIDsSQL: String {
        """
        SELECT \(columns) FROM \(quoted).events \
        WHERE position = ANY(ARRAY(SELECT i.position FROM \(quoted).event_ids i WHERE i.event_id = ANY($1)))
        """
    }
}

/// A schema name that is not a plain lowercase identifier.
struct PostgresSchemaNameError: Error, CustomStringConvertible {
    let name: String
    var description: String {
        "schema name '\(name)' must be 1…63 characters of a-z, 0-9 and _, not start with a digit or pg_"
    }
}
