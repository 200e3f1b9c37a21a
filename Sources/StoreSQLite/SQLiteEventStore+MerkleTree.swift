import EventLog
import Foundation

// MARK: - The kept Merkle tree (schema 6, docs/AUDIT.md)

extension SQLiteEventStore: MerkleTreeStore {
    public func merkleTreeState() throws -> MerkleTreeState {
        try withConnection { try Self.treeState($0) }
    }

    static func treeState(_ connection: SQLiteConnection) throws -> MerkleTreeState {
        let statement = try connection.statement("SELECT leaf, position FROM merkle_leaves ORDER BY leaf DESC LIMIT 1")
        defer { statement.reset() }
        guard try statement.step() else { return MerkleTreeState(size: 0, position: 0) }
        return MerkleTreeState(size: UInt64(statement.int64(0)) + 1, position: statement.int64(1))
    }

    public func extendMerkleTree(limit: Int) throws -> (state: MerkleTreeState, added: Int) {
        try withConnection { connection in
            // Nothing to add is the common case: found without the write lock.
            let current = try connection.transaction("DEFERRED") { () throws -> (MerkleTreeState, Int64) in
                (try Self.treeState(connection), try connection.scalarInt("SELECT max(position) FROM events") ?? 0)
            }
            if current.1 <= current.0.position || limit <= 0 { return (current.0, 0) }
            return try connection.transaction {
                let state = try Self.treeState(connection)
                let select = try connection.statement("SELECT position, hash FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
                try select.bind(state.position, at: 1)
                try select.bind(Int64(limit), at: 2)
                var rows: [(position: Int64, hash: String)] = []
                while try select.step() { rows.append((select.int64(0), select.string(1))) }
                select.reset()
                guard let last = rows.last else { return (state, 0) }
                let keys = MerkleTreeGrowth.frontierKeys(size: state.size)
                let found = try Self.nodes(Set(keys), connection)
                var growth: MerkleTreeGrowth
                do {
                    growth = try MerkleTreeGrowth(size: state.size, frontier: keys.map { found[$0] ?? [] })
                } catch {
                    throw EventStoreError.corrupt("the kept Merkle tree of \(state.size) leaves cannot be extended: \(error) (run 'evtool verify')")
                }
                let leaf = try connection.statement("INSERT INTO merkle_leaves (leaf, position, hash) VALUES (?1, ?2, ?3)")
                let node = try connection.statement("INSERT INTO merkle_nodes (level, idx, hash) VALUES (?1, ?2, ?3)")
                for row in rows {
                    guard let entry = [UInt8](hexadecimal: row.hash), entry.count == MerkleHash.size else {
                        throw EventStoreError.corrupt("the event at position \(row.position) has no valid chain hash: the Merkle tree cannot cover it (run 'evtool verify')")
                    }
                    for (key, hash) in growth.add(leafHash: MerkleHash.leaf(entry)) {
                        if key.level == 0 {
                            try leaf.bind(Int64(key.index), at: 1)
                            try leaf.bind(row.position, at: 2)
                            try leaf.bind(hash.hexString, at: 3)
                            try leaf.run()
                        } else {
                            try node.bind(Int64(key.level), at: 1)
                            try node.bind(Int64(key.index), at: 2)
                            try node.bind(hash.hexString, at: 3)
                            try node.run()
                        }
                    }
                }
                return (MerkleTreeState(size: growth.size, position: last.position), rows.count)
            }
        }
    }

    public func merkleNodes(_ keys: Set<MerkleNodeKey>) throws -> [MerkleNodeKey: [UInt8]] {
        try withConnection { try Self.nodes(keys, $0) }
    }

    static func nodes(_ keys: Set<MerkleNodeKey>, _ connection: SQLiteConnection) throws -> [MerkleNodeKey: [UInt8]] {
        let leaf = try connection.statement("SELECT hash FROM merkle_leaves WHERE leaf = ?1")
        let node = try connection.statement("SELECT hash FROM merkle_nodes WHERE level = ?1 AND idx = ?2")
        var found: [MerkleNodeKey: [UInt8]] = [:]
        for key in keys {
            let statement = key.level == 0 ? leaf : node
            if key.level == 0 {
                try leaf.bind(Int64(key.index), at: 1)
            } else {
                try node.bind(Int64(key.level), at: 1)
                try node.bind(Int64(key.index), at: 2)
            }
            // A kept hash that is not 64 hex digits reads as no bytes: verify names it.
            if try statement.step() { found[key] = [UInt8](hexadecimal: statement.string(0)) ?? [] }
            statement.reset()
        }
        return found
    }

    public func merkleLeafIndex(position: Int64) throws -> UInt64? {
        try withConnection { connection in
            try connection.scalarInt("SELECT leaf FROM merkle_leaves WHERE position = ?1") { try $0.bind(position, at: 1) }.map { UInt64($0) }
        }
    }

    public func merkleLevel(_ level: Int, from index: UInt64, limit: Int) throws -> [MerkleNodeRow] {
        try withConnection { connection in
            let statement = level == 0
                ? try connection.statement("SELECT leaf, hash, position FROM merkle_leaves WHERE leaf >= ?2 ORDER BY leaf LIMIT ?3")
                : try connection.statement("SELECT idx, hash, NULL FROM merkle_nodes WHERE level = ?1 AND idx >= ?2 ORDER BY idx LIMIT ?3")
            defer { statement.reset() }
            if level > 0 { try statement.bind(Int64(level), at: 1) }
            try statement.bind(Int64(clamping: index), at: 2)
            try statement.bind(Int64(limit), at: 3)
            var rows: [MerkleNodeRow] = []
            while try statement.step() {
                rows.append(MerkleNodeRow(key: MerkleNodeKey(level: level, index: UInt64(bitPattern: statement.int64(0))),
                                          hash: [UInt8](hexadecimal: statement.string(1)) ?? [],
                                          position: statement.isNull(2) ? nil : statement.int64(2)))
            }
            return rows
        }
    }

    public func merkleLevelCounts() throws -> [Int: UInt64] {
        try withConnection { connection in
            let statement = try connection.statement(
                "SELECT 0, count(*) FROM merkle_leaves UNION ALL SELECT level, count(*) FROM merkle_nodes GROUP BY level")
            defer { statement.reset() }
            var counts: [Int: UInt64] = [:]
            while try statement.step() { counts[Int(statement.int64(0))] = UInt64(statement.int64(1)) }
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
