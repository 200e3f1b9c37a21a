import EventLog
import Foundation

// MARK: - The kept Merkle tree, in tiles (schema 7, docs/AUDIT.md)

extension PostgresEventStore: MerkleTreeStore {
    public func merkleTreeState() throws -> MerkleTreeState {
        try withRetry { connection in
            let result = try connection.query("""
                SELECT idx * 16 + length(hashes) / 32, last_position FROM \(schema.quoted).merkle_tiles
                WHERE level = 0 ORDER BY idx DESC LIMIT 1
                """, types: [], binds: PostgresBinds())
            guard result.rowCount == 1 else { return MerkleTreeState(size: 0, position: 0) }
            return MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1))
        }
    }

    /// Calls `merkle_extend`, which computes every hash from the events in SQL as the owner
    /// (so that the app role, which may call it, cannot write a hash of its own), set-based:
    /// one query for the new leaves and one upsert per level of the tiles they fill.
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

    public func merkleTiles(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: MerkleTile] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBinds()
        let ordered = Array(keys)
        binds.append(int4Array: ordered.map { Int32(clamping: $0.level) })
        binds.append(int8Array: ordered.map { Int64(clamping: $0.index) })
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT t.level, t.idx, t.hashes, t.first_position, t.last_position FROM \(schema.quoted).merkle_tiles t
                JOIN unnest($1::integer[], $2::bigint[]) AS k(level, idx) ON t.level = k.level AND t.idx = k.idx
                """, types: [PostgresType.int4Array, PostgresType.int8Array], binds: binds)
            var found: [MerkleNodeKey: MerkleTile] = [:]
            for row in 0..<result.rowCount {
                let tile = try Self.tile(result, row: row)
                found[tile.key] = tile
            }
            return found
        }
    }

    /// The tile on `row` (level, idx, hashes, first, last). A kept value whose length is not a
    /// multiple of 32 ends in a short hash: verify names it.
    static func tile(_ result: PostgresResult, row: Int) throws -> MerkleTile {
        let bytes = [UInt8](result.bytes(row: row, column: 2))
        let hashes = stride(from: 0, to: bytes.count, by: MerkleHash.size).map { Array(bytes[$0..<min($0 + MerkleHash.size, bytes.count)]) }
        return MerkleTile(level: Int(try result.int32(row: row, column: 0)), index: UInt64(bitPattern: try result.int64(row: row, column: 1)),
                          hashes: hashes,
                          firstPosition: result.isNull(row: row, column: 3) ? nil : try result.int64(row: row, column: 3),
                          lastPosition: result.isNull(row: row, column: 4) ? nil : try result.int64(row: row, column: 4))
    }

    public func merkleLeafIndex(position: Int64) throws -> UInt64? {
        var binds = PostgresBinds()
        binds.append(int8: position)
        return try withRetry { connection in
            // The level-0 tile by its positions, then the events of that tile before this one.
            let result = try connection.query("""
                SELECT t.idx, (SELECT count(*) FROM \(schema.quoted).events e WHERE e.position >= t.first_position AND e.position < $1)
                FROM (SELECT idx, first_position FROM \(schema.quoted).merkle_tiles
                      WHERE level = 0 AND last_position >= $1 ORDER BY last_position LIMIT 1) AS t
                WHERE t.first_position <= $1 AND EXISTS (SELECT 1 FROM \(schema.quoted).events e WHERE e.position = $1)
                """, types: [PostgresType.int8], binds: binds)
            guard result.rowCount == 1 else { return nil }
            let before = try result.int64(row: 0, column: 1)
            guard before < Int64(MerkleTile.width) else { return nil }
            return UInt64(bitPattern: try result.int64(row: 0, column: 0)) * UInt64(MerkleTile.width) + UInt64(before)
        }
    }

    public func merkleTiles(level: Int, from index: UInt64, limit: Int) throws -> [MerkleTile] {
        var binds = PostgresBinds()
        binds.append(int4: Int32(clamping: level))
        binds.append(int8: Int64(clamping: index))
        binds.append(int8: Int64(limit))
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT level, idx, hashes, first_position, last_position FROM \(schema.quoted).merkle_tiles
                WHERE level = $1 AND idx >= $2 ORDER BY idx LIMIT $3
                """, types: [PostgresType.int4, PostgresType.int8, PostgresType.int8], binds: binds)
            return try (0..<result.rowCount).map { try Self.tile(result, row: $0) }
        }
    }

    public func merkleLevelCounts() throws -> [Int: UInt64] {
        try withRetry { connection in
            let result = try connection.query("SELECT level, (sum(length(hashes)) / 32)::bigint FROM \(schema.quoted).merkle_tiles GROUP BY level",
                                              types: [], binds: PostgresBinds())
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
