import EventLog
import Foundation

// MARK: - The kept Merkle tree (schema 6, docs/AUDIT.md)

extension PostgresEventStore: MerkleTreeStore {
    public func merkleTreeState() throws -> MerkleTreeState {
        try withRetry { connection in
            let result = try connection.query("SELECT leaf + 1, position FROM \(schema.quoted).merkle_leaves ORDER BY leaf DESC LIMIT 1",
                                              types: [], binds: PostgresBinds())
            guard result.rowCount == 1 else { return MerkleTreeState(size: 0, position: 0) }
            return MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1))
        }
    }

    /// Calls `merkle_extend`, which computes every hash from the events in SQL as the owner.
    /// Events held back behind a transaction still running are waited for as
    /// ``readAll(after:limit:)`` waits (at most its hold-back wait), calling again.
    public func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        let clock = ContinuousClock()
        let deadline = clock.now + holdBackWait
        var pause = Duration.microseconds(50)
        var added = 0
        while true {
            var binds = PostgresBinds()
            binds.append(int4: Int32(clamping: limit - added))
            let (state, count, heldBack) = try withRetry { connection in
                let result = try connection.query("SELECT tree_size, last_position, added, held_back FROM \(schema.quoted).merkle_extend($1)",
                                                  types: [PostgresType.int4], binds: binds)
                return (MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1)),
                        Int(try result.int32(row: 0, column: 2)), try result.bool(row: 0, column: 3))
            }
            added += count
            if !heldBack || added >= limit || clock.now >= deadline { return (state, added) }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, .milliseconds(5))
        }
    }

    public func merkleNodes(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: [UInt8]] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBinds()
        let ordered = Array(keys)
        binds.append(int4Array: ordered.map { Int32($0.level) })
        binds.append(int8Array: ordered.map { Int64(bitPattern: $0.index) })
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT 0, l.leaf, l.hash FROM \(schema.quoted).merkle_leaves l
                WHERE l.leaf IN (SELECT k.idx FROM unnest($1::integer[], $2::bigint[]) AS k(level, idx) WHERE k.level = 0)
                UNION ALL
                SELECT n.level, n.idx, n.hash FROM \(schema.quoted).merkle_nodes n
                JOIN unnest($1::integer[], $2::bigint[]) AS k(level, idx) ON n.level = k.level AND n.idx = k.idx
                """, types: [PostgresType.int4Array, PostgresType.int8Array], binds: binds)
            var found: [MerkleNodeKey: [UInt8]] = [:]
            for row in 0..<result.rowCount {
                let key = MerkleNodeKey(level: Int(try result.int32(row: row, column: 0)), index: UInt64(bitPattern: try result.int64(row: row, column: 1)))
                found[key] = [UInt8](result.bytes(row: row, column: 2))
            }
            return found
        }
    }

    public func merkleLeafIndex(position: Int64) throws -> UInt64? {
        var binds = PostgresBinds()
        binds.append(int8: position)
        return try withRetry { connection in
            let result = try connection.query("SELECT leaf FROM \(schema.quoted).merkle_leaves WHERE position = $1",
                                              types: [PostgresType.int8], binds: binds)
            return result.rowCount == 1 ? UInt64(bitPattern: try result.int64(row: 0, column: 0)) : nil
        }
    }

    public func merkleLevel(_ level: Int, from index: UInt64, limit: Int) throws -> [MerkleNodeRow] {
        var binds = PostgresBinds()
        binds.append(int4: Int32(level))
        binds.append(int8: Int64(clamping: index))
        binds.append(int8: Int64(limit))
        let sql = level == 0
            ? "SELECT leaf, hash, position FROM \(schema.quoted).merkle_leaves WHERE $1 = 0 AND leaf >= $2 ORDER BY leaf LIMIT $3"
            : "SELECT idx, hash, NULL::bigint FROM \(schema.quoted).merkle_nodes WHERE level = $1 AND idx >= $2 ORDER BY idx LIMIT $3"
        return try withRetry { connection in
            let result = try connection.query(sql, types: [PostgresType.int4, PostgresType.int8, PostgresType.int8], binds: binds)
            return try (0..<result.rowCount).map { row in
                MerkleNodeRow(key: MerkleNodeKey(level: level, index: UInt64(bitPattern: try result.int64(row: row, column: 0))),
                              hash: [UInt8](result.bytes(row: row, column: 1)),
                              position: result.isNull(row: row, column: 2) ? nil : try result.int64(row: row, column: 2))
            }
        }
    }

    public func merkleLevelCounts() throws -> [Int: UInt64] {
        try withRetry { connection in
            let result = try connection.query("""
                SELECT 0, count(*) FROM \(schema.quoted).merkle_leaves
                UNION ALL SELECT level, count(*) FROM \(schema.quoted).merkle_nodes GROUP BY level
                """, types: [], binds: PostgresBinds())
            var counts: [Int: UInt64] = [:]
            for row in 0..<result.rowCount {
                counts[Int(try result.int32(row: row, column: 0))] = UInt64(try result.int64(row: row, column: 1))
            }
            return counts
        }
    }

    public func chainHashes(after position: Int64, limit: Int) throws -> [(position: Int64, hash: String)] {
        var binds = PostgresBinds()
        binds.append(int8: position)
        binds.append(int8: Int64(limit))
        return try withRetry { connection in
            let result = try connection.query("SELECT position, hash FROM \(schema.quoted).events WHERE position > $1 ORDER BY position LIMIT $2",
                                              types: [PostgresType.int8, PostgresType.int8], binds: binds)
            return try (0..<result.rowCount).map { (try result.int64(row: $0, column: 0), result.string(row: $0, column: 1)) }
        }
    }
}
