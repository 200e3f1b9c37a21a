import EventLog
import Foundation

// MARK: - The kept Merkle tree, in tiles (schema 7, docs/explanation/audit.md)

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

    /// Extends the tree. The events of this handle's recent batched appends that follow the
    /// tree's last leaf are hashed here in Swift with libcrypto (their chain hashes came back
    /// from the append calls, ``PostgresAppendedBlocks``: no row is read back) and the tiles they
    /// grow or fill handed to `merkle_put`, which writes them as the owner only if the tree still
    /// has the size they were built on and they have exactly the shape its growth gives, every
    /// kept hash unchanged, and the store still holds the run's ends as appended (schema 13,
    /// docs/explanation/audit.md): one round trip when this handle wrote the tree last (it builds on what it
    /// wrote, ``PostgresTreeFrontier``), two otherwise. Any other events (another
    /// handle's, a one-event append's) are taken by `merkle_extend`, which computes every hash
    /// from the events in SQL as the owner, in one round trip: up to the next run this handle
    /// holds, which is then taken from memory again, or to the head. Events held back behind a
    /// transaction still running are waited for as ``readAll(after:limit:)`` waits (at most its
    /// hold-back wait), calling again.
    public func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        extendsTree.store(true, ordering: .relaxed)
        let clock = ContinuousClock()
        let deadline = clock.now + holdBackWait
        var pause = Duration.microseconds(50)
        var added = 0
        var fromBlocks = true
        // The positions before the next run held in memory, when the rows must fill a gap first;
        // at most `Self.gapsFilledPerExtension` gaps, after which the rows give the rest.
        var beforeNextRun: Int?
        var gaps = 0
        while true {
            if fromBlocks {
                let blocks = appendedChain.withLock { $0 }
                guard !blocks.isEmpty else { fromBlocks = false; continue }
                let known = treeFrontier.withLock { $0 }
                let step: BlockStep
                do {
                    step = try withRetry { connection in try Self.extend(connection, schema: schema, limit: limit - added, from: blocks, known: known) }
                } catch where known != nil {
                    // Built on what this handle last wrote, which the store no longer has: read it.
                    treeFrontier.withLock { $0 = nil }
                    continue
                }
                switch step {
                case let .notFollowing(tree):
                    fromBlocks = false
                    if let tree { appendedChain.withLock { $0.forget(through: tree.position) } }
                    beforeNextRun = gaps < Self.gapsFilledPerExtension ? tree.flatMap { blocks.gap(after: $0.position) } : nil
                case .moved:
                    treeFrontier.withLock { $0 = nil }
                    continue
                case let .written(state, count, frontier):
                    treeFrontier.withLock { $0 = frontier }
                    appendedChain.withLock { $0.forget(through: state.position) }
                    added += count
                    if added >= limit { return (state, added) }
                    fromBlocks = false
                    beforeNextRun = gaps < Self.gapsFilledPerExtension ? blocks.gap(after: state.position) : nil
                }
                continue
            }
            var binds = PostgresBinds()
            binds.append(int4: Int32(clamping: min(limit - added, beforeNextRun ?? Int.max)))
            let (state, count, heldBack) = try withRetry { connection in
                let result = try connection.query("SELECT tree_size, last_position, added, held_back FROM \(schema.quoted).merkle_extend($1)",
                                                  types: [PostgresType.int4], binds: binds)
                return (MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1)),
                        Int(try result.int32(row: 0, column: 2)), try result.bool(row: 0, column: 3))
            }
            added += count
            if beforeNextRun != nil, count > 0, added < limit {
                // The gap is filled (or the rows ran on into the run): the run from memory again.
                beforeNextRun = nil
                gaps += 1
                fromBlocks = true
                continue
            }
            beforeNextRun = nil
            if !heldBack || added >= limit || clock.now >= deadline { return (state, added) }
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(5))
        }
    }

    /// The most gaps between this handle's runs that one extension fills from the rows before
    /// taking the next run from memory; after them the rows give everything to the head. Each
    /// gap costs a round trip and the run after it one or two, so where other writers' appends
    /// cut the runs into many (several servers on one store) an extension costs only a few more
    /// than one `merkle_extend` to the head.
    static let gapsFilledPerExtension = 2

    /// What one extension from the handle's appended block did.
    enum BlockStep {
        /// No run follows the tree's last leaf (`tree`: the tree as read), or the store no
        /// longer holds the run's first and last events with those hashes (`tree` nil):
        /// nothing written.
        case notFollowing(tree: MerkleTreeState?)
        /// Another follower extended the tree between the read and the write: nothing written.
        case moved
        /// `added` leaves written; the tree is now `state`, its open tiles `frontier`.
        case written(state: MerkleTreeState, added: Int, frontier: PostgresTreeFrontier)
    }

    /// One extension by at most `limit` events of the run of `blocks` (this handle's recent
    /// batched appends) that follows the tree's last leaf: the tree's state and open tiles (one
    /// statement, or `known`, what this handle last wrote, when a run follows it: `merkle_put`
    /// refuses a tree that has moved since), the run's hashes in Swift, and one `merkle_put`,
    /// which writes only if the store still holds the run's first and last events with those
    /// hashes.
    private static func extend(_ connection: PostgresConnection, schema: PostgresSchema, limit: Int, from blocks: PostgresAppendedBlocks,
                               known: PostgresTreeFrontier?) throws -> BlockStep {
        let s = schema.quoted
        var state = MerkleTreeState(size: 0, position: 0)
        var open: [MerkleNodeKey: MerkleTile] = [:]
        if let known, blocks.run(following: known.state.position) != nil {
            state = known.state
            open = known.open
        } else {
            // The tree's size and its open tiles (one per level whose node count is not a
            // multiple of 16) in one statement, so both come from one snapshot even while another
            // follower commits an extension; each tile by its key (the LIMIT keeps the planner
            // from joining the whole table).
            let top = try connection.query("""
                WITH top AS (SELECT idx * 16 + length(hashes) / 32 AS size, last_position FROM \(s).merkle_tiles
                             WHERE level = 0 ORDER BY idx DESC LIMIT 1)
                SELECT top.size, top.last_position, t.level, t.idx, t.hashes, t.first_position, t.last_position
                FROM (VALUES (1)) AS one (x) LEFT JOIN top ON true LEFT JOIN LATERAL (
                    SELECT t.* FROM generate_series(0, 60, 4) AS l,
                         LATERAL (SELECT * FROM \(s).merkle_tiles t WHERE t.level = l AND t.idx = (top.size >> l) / 16 LIMIT 1) AS t
                    WHERE (top.size >> l) % 16 <> 0) AS t ON true
                """, types: [], binds: PostgresBinds())
            guard top.rowCount > 0 else { return .notFollowing(tree: nil) }
            if !top.isNull(row: 0, column: 0) {
                state = MerkleTreeState(size: UInt64(try top.int64(row: 0, column: 0)), position: try top.int64(row: 0, column: 1))
            }
            for row in 0..<top.rowCount where !top.isNull(row: row, column: 2) {
                let tile = try tile(top, row: row, from: 2)
                open[tile.key] = tile
            }
        }
        guard let block = blocks.run(following: state.position) else { return .notFollowing(tree: state) }
        guard limit > 0 else { return .notFollowing(tree: nil) }
        let size = state.size
        let kept = open
        var growth: MerkleTileGrowth
        do {
            growth = try MerkleTileGrowth(size: size, tiles: kept)
        } catch {
            throw EventStoreError.corrupt("the kept Merkle tree of \(size) leaves cannot be extended: \(error) (run 'evtool verify')")
        }
        let skip = Int(state.position + 1 - block.first)
        let added = min(block.count - skip, limit)
        block.hashes.withUnsafeBytes { bytes in
            for offset in skip..<(skip + added) {
                growth.add(entry: bytes.baseAddress! + offset * MerkleHash.size, position: block.first + Int64(offset))
            }
        }
        let last = block.first + Int64(skip + added) - 1
        var written: [MerkleNodeKey: MerkleTile] = [:]
        var levels: [Int32] = [], indexes: [Int64] = [], hashes: [[UInt8]] = [], firsts: [Int64?] = [], lasts: [Int64?] = []
        growth.forEachTile { level, index, first, final, bytes in
            levels.append(Int32(level))
            indexes.append(Int64(bitPattern: index))
            hashes.append([UInt8](bytes))
            firsts.append(first)
            lasts.append(final)
            if bytes.count < MerkleTile.width * MerkleHash.size {
                let tile = MerkleTile(level: level, index: index, hashes: stride(from: 0, to: bytes.count, by: MerkleHash.size).map { [UInt8](bytes[$0..<($0 + MerkleHash.size)]) },
                                      firstPosition: first, lastPosition: final)
                written[tile.key] = tile
            }
        }
        var put = PostgresBinds()
        put.append(int8: Int64(state.size))
        put.append(int8: Int64(growth.size))
        put.append(int4Array: levels)
        put.append(int8Array: indexes)
        put.append(byteaArray: hashes)
        put.append(nullableInt8Array: firsts)
        put.append(nullableInt8Array: lasts)
        put.append(int8Array: [block.first, block.last])
        put.append(textArray: [block.hex(at: 0), block.hex(at: block.count - 1)])
        let result = try connection.query("SELECT tree_size, last_position, checked, written FROM \(s).merkle_put($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                                          types: [PostgresType.int8, PostgresType.int8, PostgresType.int4Array, PostgresType.int8Array, PostgresType.byteaArray,
                                                  PostgresType.int8Array, PostgresType.int8Array, PostgresType.int8Array, PostgresType.textArray], binds: put)
        let after = MerkleTreeState(size: UInt64(try result.int64(row: 0, column: 0)), position: try result.int64(row: 0, column: 1))
        guard try result.bool(row: 0, column: 2) else { return .notFollowing(tree: nil) }
        guard try result.bool(row: 0, column: 3) else { return .moved }
        assert(after == MerkleTreeState(size: growth.size, position: last))
        // The open tiles now: those written that are not full, and the others kept as they were.
        var frontier = PostgresTreeFrontier(state: after, open: [:])
        for key in MerkleTile.openTileKeys(size: after.size) {
            frontier.open[key] = written[key] ?? open[key]
        }
        return .written(state: after, added: added, frontier: frontier)
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
