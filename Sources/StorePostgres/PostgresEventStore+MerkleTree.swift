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

    /// Extends the tree. The events of this handle's last batched append, when they follow the
    /// tree's last leaf, are hashed here in Swift with libcrypto (their chain hashes came back
    /// from the append call, ``PostgresAppendedChain``: no row is read back) and the tiles they
    /// grow or fill handed to `merkle_put`, which writes them as the owner only if the tree still
    /// has the size they were built on and they have exactly the shape its growth gives, every
    /// kept hash unchanged (schema 13, docs/AUDIT.md): two round trips. Any other events (another
    /// handle's, a one-event append's, those after the block) are taken by `merkle_extend`,
    /// which computes every hash from the events in SQL as the owner, in one round trip: events
    /// held back behind a transaction still running are waited for as ``readAll(after:limit:)``
    /// waits (at most its hold-back wait), calling again.
    public func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        let clock = ContinuousClock()
        let deadline = clock.now + holdBackWait
        var pause = Duration.microseconds(50)
        var added = 0
        var fromBlock = true
        while true {
            if fromBlock {
                let block = appendedChain.withLock { $0 }
                let step = block.count == 0 ? nil
                    : try withRetry { connection in try Self.extend(connection, schema: schema, limit: limit - added, from: block) }
                if let step {
                    added += step.added
                    if step.moved { continue }
                    if added >= limit { return (step.state, added) }
                }
                fromBlock = false
            }
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

    /// One extension by at most `limit` of the events of `block`, this handle's last batched
    /// append: the tree's state and open tiles (one statement), the block's hashes in Swift, and
    /// one `merkle_put`. Nil when the block does not follow the tree's last leaf (or the store
    /// no longer holds its first and last events with those hashes): nothing written. `moved`
    /// when another follower extended the tree between the read and the write (nothing written).
    private static func extend(_ connection: PostgresConnection, schema: PostgresSchema, limit: Int, from block: PostgresAppendedChain)
        throws -> (state: MerkleTreeState, added: Int, moved: Bool)? {
        let s = schema.quoted
        // The tree's size and its open tiles (one per level whose node count is not a multiple
        // of 16) in one statement, so both come from one snapshot even while another follower
        // commits an extension; each tile by its key (the LIMIT keeps the planner from joining
        // the whole table). Beside them, the chain hashes the store holds at the block's ends.
        var ends = PostgresBinds()
        ends.append(int8: block.first)
        ends.append(int8: block.last)
        let top = try connection.query("""
            WITH top AS (SELECT idx * 16 + length(hashes) / 32 AS size, last_position FROM \(s).merkle_tiles
                         WHERE level = 0 ORDER BY idx DESC LIMIT 1)
            SELECT top.size, top.last_position, t.level, t.idx, t.hashes, t.first_position, t.last_position,
                   (SELECT hash FROM \(s).events WHERE position = $1), (SELECT hash FROM \(s).events WHERE position = $2)
            FROM (VALUES (1)) AS one (x) LEFT JOIN top ON true LEFT JOIN LATERAL (
                SELECT t.* FROM generate_series(0, 60, 4) AS l,
                     LATERAL (SELECT * FROM \(s).merkle_tiles t WHERE t.level = l AND t.idx = (top.size >> l) / 16 LIMIT 1) AS t
                WHERE (top.size >> l) % 16 <> 0) AS t ON true
            """, types: [PostgresType.int8, PostgresType.int8], binds: ends)
        guard top.rowCount > 0, limit > 0 else { return nil }
        let state = top.isNull(row: 0, column: 0) ? MerkleTreeState(size: 0, position: 0)
            : MerkleTreeState(size: UInt64(try top.int64(row: 0, column: 0)), position: try top.int64(row: 0, column: 1))
        // The block follows the tree's last leaf (no position between them), and the store
        // still holds its two ends as appended.
        guard state.position >= block.first - 1, state.position < block.last,
              holds(top, column: 7, block, offset: 0), holds(top, column: 8, block, offset: block.count - 1) else { return nil }
        var growth: MerkleTileGrowth
        do {
            var open: [MerkleNodeKey: MerkleTile] = [:]
            for row in 0..<top.rowCount where !top.isNull(row: row, column: 2) {
                let tile = try tile(top, row: row, from: 2)
                open[tile.key] = tile
            }
            growth = try MerkleTileGrowth(size: state.size, tiles: open)
        } catch let error as MerkleProofError {
            throw EventStoreError.corrupt("the kept Merkle tree of \(state.size) leaves cannot be extended: \(error) (run 'evtool verify')")
        }
        let skip = Int(state.position + 1 - block.first)
        let added = min(block.count - skip, limit)
        block.hashes.withUnsafeBytes { bytes in
            for offset in skip..<(skip + added) {
                growth.add(entry: bytes.baseAddress! + offset * MerkleHash.size, position: block.first + Int64(offset))
            }
        }
        let last = block.first + Int64(skip + added) - 1
        var levels: [Int32] = [], indexes: [Int64] = [], hashes: [[UInt8]] = [], firsts: [Int64?] = [], lasts: [Int64?] = []
        growth.forEachTile { level, index, first, final, bytes in
            levels.append(Int32(level))
            indexes.append(Int64(bitPattern: index))
            hashes.append([UInt8](bytes))
            firsts.append(first)
            lasts.append(final)
        }
        var put = PostgresBinds()
        put.append(int8: Int64(state.size))
        put.append(int8: Int64(growth.size))
        put.append(int4Array: levels)
        put.append(int8Array: indexes)
        put.append(byteaArray: hashes)
        put.append(nullableInt8Array: firsts)
        put.append(nullableInt8Array: lasts)
        let result = try connection.query("SELECT tree_size, last_position, written FROM \(s).merkle_put($1, $2, $3, $4, $5, $6, $7)",
                                          types: [PostgresType.int8, PostgresType.int8, PostgresType.int4Array, PostgresType.int8Array, PostgresType.byteaArray,
                                                  PostgresType.int8Array, PostgresType.int8Array], binds: put)
        let after = MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1))
        guard try result.bool(row: 0, column: 2) else { return (after, 0, true) }
        assert(after == MerkleTreeState(size: growth.size, position: last))
        return (after, added, false)
    }

    /// Whether the chain hash in `column` of `top`'s first row is the appended block's hash at
    /// `offset` (the store still holds the event as appended).
    private static func holds(_ top: PostgresResult, column: Int, _ block: PostgresAppendedChain, offset: Int) -> Bool {
        guard !top.isNull(row: 0, column: column) else { return false }
        return withUnsafeTemporaryAllocation(byteCount: MerkleHash.size, alignment: 8) { decoded in
            guard HexDecoding.decode(top.bytes(row: 0, column: column), into: decoded) else { return false }
            return block.hashes.withUnsafeBytes { memcmp($0.baseAddress! + offset * MerkleHash.size, decoded.baseAddress!, MerkleHash.size) == 0 }
        }
    }

    public func merkleTiles(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: MerkleTile] {
        try withRetry { connection in try Self.tiles(keys, connection, schema: schema) }
    }

    /// The kept tiles with these keys, in one query on `connection`.
    static func tiles(_ keys: Set<MerkleNodeKey>, _ connection: PostgresConnection, schema: PostgresSchema) throws -> [MerkleNodeKey: MerkleTile] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBinds()
        let ordered = Array(keys)
        binds.append(int4Array: ordered.map { Int32(clamping: $0.level) })
        binds.append(int8Array: ordered.map { Int64(clamping: $0.index) })
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

    /// The tile on `row` (level, idx, hashes, first, last, from `column` on). A kept value whose length is not a
    /// multiple of 32 ends in a short hash: verify names it.
    static func tile(_ result: PostgresResult, row: Int, from column: Int = 0) throws -> MerkleTile {
        let bytes = [UInt8](result.bytes(row: row, column: column + 2))
        let hashes = stride(from: 0, to: bytes.count, by: MerkleHash.size).map { Array(bytes[$0..<min($0 + MerkleHash.size, bytes.count)]) }
        return MerkleTile(level: Int(try result.int32(row: row, column: column)), index: UInt64(bitPattern: try result.int64(row: row, column: column + 1)),
                          hashes: hashes,
                          firstPosition: result.isNull(row: row, column: column + 3) ? nil : try result.int64(row: row, column: column + 3),
                          lastPosition: result.isNull(row: row, column: column + 4) ? nil : try result.int64(row: row, column: column + 4))
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
