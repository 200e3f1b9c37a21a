import CSQLite
import EventLog
import Foundation

// MARK: - The kept Merkle tree, in tiles (schema 7, docs/explanation/audit.md)

extension SQLiteEventStore: MerkleTreeStore {
    public func merkleTreeState() throws -> MerkleTreeState {
        try withConnection { try Self.treeState($0) }
    }

    /// The size and last position, from the last level-0 tile.
    static func treeState(_ connection: SQLiteConnection) throws -> MerkleTreeState {
        let statement = try connection.statement(
            "SELECT idx, length(hashes) / 32, last_position FROM merkle_tiles WHERE level = 0 ORDER BY idx DESC LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else { return MerkleTreeState(size: 0, position: 0) }
        let size = UInt64(bitPattern: statement.int64(0)) * UInt64(MerkleTile.width) + UInt64(bitPattern: statement.int64(1))
        return MerkleTreeState(size: size, position: statement.int64(2))
    }

    /// Reads the events after the tree's last leaf, hashes them in Swift (libcrypto) into the
    /// open tiles and writes the tiles they complete or grow, one prepared upsert each, in one
    /// transaction. The events of this connection's last append are not read back: their chain
    /// hashes are kept from the append (``AppendedChain``, checked against the file's rows at
    /// both ends of the block). The tree is derived data: that transaction commits with
    /// `synchronous=NORMAL` (no wait for the disk; a power loss can only lose extensions, which
    /// the next one redoes, never events, which their own commits made durable).
    public func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        try withConnection { connection in
            // Nothing to add is the common case: found without the write lock, in one statement
            // (its own read transaction).
            let check = try connection.statement(
                "SELECT (SELECT max(position) FROM events), (SELECT last_position FROM merkle_tiles WHERE level = 0 ORDER BY idx DESC LIMIT 1)")
            let (head, covered) = try { () throws -> (Int64, Int64) in
                defer { check.reset() }
                guard try check.step() else { return (0, 0) }
                return (check.isNull(0) ? 0 : check.int64(0), check.isNull(1) ? 0 : check.int64(1))
            }()
            if head <= covered || limit <= 0 { return (try Self.treeState(connection), 0) }
            // Every statement of an extension is prepared once per connection (BEGIN, COMMIT and
            // the pragmas too): at one extension per small append, preparing them cost more
            // than the tree's own writes.
            return try connection.withoutWaitingForTheDisk {
                try Self.preparedTransaction(connection) { try Self.extend(connection, limit: limit) }
            }
        }
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`) through prepared statements;
    /// commits when it returns and rolls back when it throws, rethrowing the first error.
    private static func preparedTransaction<T>(_ connection: SQLiteConnection, _ body: () throws -> T) throws -> T {
        try connection.statement("BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try connection.statement("COMMIT").run()
            return result
        } catch {
            if sqlite3_get_autocommit(connection.handle) == 0 { _ = sqlite3_exec(connection.handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
    }

    private static func extend(_ connection: SQLiteConnection, limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        let state = try treeState(connection)
        var growth: MerkleTileGrowth
        do {
            growth = try MerkleTileGrowth(size: state.size, kept: try openTiles(size: state.size, connection))
        } catch let error as MerkleProofError {
            throw EventStoreError.corrupt("the kept Merkle tree of \(state.size) leaves cannot be extended: \(error) (run 'evtool verify')")
        }
        var added = 0
        var last = state.position
        // The events this connection's last append committed, when they follow the tree's last
        // leaf: their chain hashes from memory (AppendedChain), not read back. The block's first
        // and last rows are read to check that the file still holds them as appended.
        if let block = try appendedBlock(after: state.position, connection) {
            let take = min(block.count, limit)
            block.hashes.withUnsafeBytes { bytes in
                for offset in 0..<take {
                    growth.add(entry: bytes.baseAddress! + offset * MerkleHash.size, position: block.first + Int64(offset))
                }
            }
            added = take
            last = block.first + Int64(take) - 1
        }
        let select = try connection.statement("SELECT position, hash FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
        try select.bind(last, at: 1)
        try select.bind(Int64(limit - added), at: 2)
        // Each chain hash is decoded in place (the row's text, no copy) into one buffer and
        // hashed from there into the open tile: no allocation per event.
        try withUnsafeTemporaryAllocation(byteCount: MerkleHash.size, alignment: 8) { entry in
            defer { select.reset() }
            while added < limit, try select.step() {
                let position = select.int64(0)
                guard HexDecoding.decode(UnsafeRawBufferPointer(select.textBytes(1)), into: entry) else {
                    throw EventStoreError.corrupt("the event at position \(position) has no valid chain hash: the Merkle tree cannot cover it (run 'evtool verify')")
                }
                growth.add(entry: UnsafeRawPointer(entry.baseAddress!), position: position)
                added += 1
                last = position
            }
        }
        guard added > 0 else { return (state, 0) }
        let upsert = try connection.statement("""
            INSERT INTO merkle_tiles (level, idx, hashes, first_position, last_position) VALUES (?1, ?2, ?3, ?4, ?5)
            ON CONFLICT (level, idx) DO UPDATE SET hashes = excluded.hashes, last_position = excluded.last_position
            """)
        try growth.forEachTile { level, index, first, final, hashes in
            try upsert.bind(Int64(level), at: 1)
            try upsert.bind(Int64(bitPattern: index), at: 2)
            try upsert.bindBlob(hashes, at: 3)
            if let first { try upsert.bind(first, at: 4) } else { try upsert.bindNull(at: 4) }
            if let final { try upsert.bind(final, at: 5) } else { try upsert.bindNull(at: 5) }
            try upsert.run()
        }
        return (MerkleTreeState(size: growth.size, position: last), added)
    }

    /// The part of the connection's last committed append (``AppendedChain``) after `position`,
    /// when its events follow it (the first is at `position` + 1, or `position` is inside the
    /// block) and the file still holds the block's first and last events with those chain
    /// hashes; nil otherwise (the caller reads the rows).
    private static func appendedBlock(after position: Int64, _ connection: SQLiteConnection) throws -> (first: Int64, count: Int, hashes: ArraySlice<UInt8>)? {
        let chain = connection.appendedChain
        guard chain.count > 0, position >= chain.first - 1, position < chain.last else { return nil }
        let check = try connection.statement("SELECT hash FROM events WHERE position = ?1")
        for offset in chain.count == 1 ? [0] : [0, chain.count - 1] {
            try check.bind(chain.first + Int64(offset), at: 1)
            defer { check.reset() }
            guard try check.step() else { return nil }
            let matches = withUnsafeTemporaryAllocation(byteCount: MerkleHash.size, alignment: 8) { decoded in
                guard HexDecoding.decode(UnsafeRawBufferPointer(check.textBytes(0)), into: decoded) else { return false }
                return chain.hashes.withUnsafeBytes { memcmp($0.baseAddress! + offset * MerkleHash.size, decoded.baseAddress!, MerkleHash.size) == 0 }
            }
            guard matches else { return nil }
        }
        let skip = Int(position + 1 - chain.first)
        return (position + 1, chain.count - skip, chain.hashes[(skip * MerkleHash.size)...])
    }

    /// The open tiles of a tree of `size` leaves, each blob as kept (not split into hashes).
    private static func openTiles(size: UInt64, _ connection: SQLiteConnection) throws -> [MerkleNodeKey: MerkleTileGrowth.KeptTile] {
        let statement = try connection.statement("SELECT hashes, first_position, last_position FROM merkle_tiles WHERE level = ?1 AND idx = ?2")
        var found: [MerkleNodeKey: MerkleTileGrowth.KeptTile] = [:]
        for key in MerkleTile.openTileKeys(size: size) {
            try statement.bind(Int64(key.level), at: 1)
            try statement.bind(Int64(clamping: key.index), at: 2)
            if try statement.step() {
                found[key] = MerkleTileGrowth.KeptTile(hashes: statement.blob(0), firstPosition: statement.isNull(1) ? nil : statement.int64(1),
                                                       lastPosition: statement.isNull(2) ? nil : statement.int64(2))
            }
            statement.reset()
        }
        return found
    }

    public func merkleTiles(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: MerkleTile] {
        try withConnection { try Self.tiles(keys, $0) }
    }

    static func tiles(_ keys: Set<MerkleNodeKey>, _ connection: SQLiteConnection) throws -> [MerkleNodeKey: MerkleTile] {
        let statement = try connection.statement(
            "SELECT level, idx, hashes, first_position, last_position FROM merkle_tiles WHERE level = ?1 AND idx = ?2")
        var found: [MerkleNodeKey: MerkleTile] = [:]
        for key in keys {
            try statement.bind(Int64(key.level), at: 1)
            try statement.bind(Int64(clamping: key.index), at: 2)
            if try statement.step() { found[key] = tile(statement) }
            statement.reset()
        }
        return found
    }

    /// The tile on the statement's current row (level, idx, hashes, first, last). A kept blob
    /// whose length is not a multiple of 32 ends in a short hash: verify names it.
    static func tile(_ statement: SQLiteStatement) -> MerkleTile {
        let bytes = statement.blob(2)
        let hashes = stride(from: 0, to: bytes.count, by: MerkleHash.size).map { Array(bytes[$0..<min($0 + MerkleHash.size, bytes.count)]) }
        return MerkleTile(level: Int(statement.int64(0)), index: UInt64(bitPattern: statement.int64(1)), hashes: hashes,
                          firstPosition: statement.isNull(3) ? nil : statement.int64(3),
                          lastPosition: statement.isNull(4) ? nil : statement.int64(4))
    }

    /// The level-0 tile whose positions reach `?1`, found through the index on `last_position`
    /// (O(log n)). Named: without statistics SQLite's planner prefers the key's `level = 0`
    /// and scanned every level-0 tile (one per 16 events) to sort them by `last_position`.
    static let leafTileSQL = """
        SELECT idx, first_position FROM merkle_tiles INDEXED BY merkle_tiles_last_position
        WHERE level = 0 AND last_position >= ?1 ORDER BY last_position LIMIT 1
        """

    public func merkleLeafIndex(position: Int64) throws -> UInt64? {
        try withConnection { connection in
            let statement = try connection.statement(Self.leafTileSQL)
            try statement.bind(position, at: 1)
            guard try statement.step() else {
                statement.reset()
                return nil
            }
            let (tile, first) = (UInt64(bitPattern: statement.int64(0)), statement.int64(1))
            statement.reset()
            guard first <= position,
                  try connection.scalarInt("SELECT count(*) FROM events WHERE position = ?1", { try $0.bind(position, at: 1) }) == 1,
                  let before = try connection.scalarInt("SELECT count(*) FROM events WHERE position >= ?1 AND position < ?2", {
                      try $0.bind(first, at: 1)
                      try $0.bind(position, at: 2)
                  }), before < Int64(MerkleTile.width)
            else { return nil }
            return tile * UInt64(MerkleTile.width) + UInt64(before)
        }
    }

    public func merkleTiles(level: Int, from index: UInt64, limit: Int) throws -> [MerkleTile] {
        try withConnection { connection in
            let statement = try connection.statement(
                "SELECT level, idx, hashes, first_position, last_position FROM merkle_tiles WHERE level = ?1 AND idx >= ?2 ORDER BY idx LIMIT ?3")
            defer { statement.reset() }
            try statement.bind(Int64(level), at: 1)
            try statement.bind(Int64(clamping: index), at: 2)
            try statement.bind(Int64(limit), at: 3)
            var tiles: [MerkleTile] = []
            while try statement.step() { tiles.append(Self.tile(statement)) }
            return tiles
        }
    }

    public func merkleLevelCounts() throws -> [Int: UInt64] {
        try withConnection { connection in
            let statement = try connection.statement("SELECT level, sum(length(hashes)) / 32 FROM merkle_tiles GROUP BY level")
            defer { statement.reset() }
            var counts: [Int: UInt64] = [:]
            while try statement.step() { counts[Int(statement.int64(0))] = UInt64(bitPattern: statement.int64(1)) }
            return counts
        }
    }

    public func chainHashes(after position: Int64, limit: Int) throws -> [(position: Int64, hash: String)] {
        try withConnection { connection in
            let statement = try connection.statement("SELECT position, hash FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
            defer { statement.reset() }
            try statement.bind(position, at: 1)
            try statement.bind(Int64(limit), at: 2)
            var rows: [(position: Int64, hash: String)] = []
            while try statement.step() { rows.append((statement.int64(0), statement.string(1))) }
            return rows
        }
    }
}
