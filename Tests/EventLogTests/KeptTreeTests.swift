import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// The Merkle tree kept in the store (in tiles, schema 7): extended by its follower from its size to the
/// head, it gives the same roots and proofs as the tree computed from the log, from O(log n)
/// rows; `KeptTreeCheck` recomputes it and names a tampered subtree. On an SQLite file and on
/// PostgreSQL.
@Suite("Kept Merkle tree: extension, proofs from stored nodes, tamper detection")
struct KeptTreeTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqliteFile, postgres
        var testDescription: String { rawValue }
    }

    /// A fresh store of `kind`, a second handle to it, and a way to run SQL on it as its owner.
    struct Fixture: @unchecked Sendable {
        let store: any MerkleTreeStore & AuditableEventStore
        let open: () throws -> any MerkleTreeStore & AuditableEventStore
        let sql: (String) throws -> Processes.Result
        let table: (String) -> String
        let cleanup: () -> Void
    }

    static func make(_ kind: Kind) throws -> Fixture {
        switch kind {
        case .sqliteFile:
            let made = try TestStores.sqliteFile()
            return Fixture(store: made.store, open: { try made.open() },
                           sql: { try Processes.run(Processes.sqlite3, [made.path, $0]) }, table: { $0 }, cleanup: made.cleanup)
        case .postgres:
            let made = try TestStores.postgres()
            return Fixture(store: made.store, open: { try made.open() },
                           sql: { try Processes.run(Processes.psql, [made.url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", $0]) },
                           table: { "\(made.schema).\($0)" }, cleanup: made.cleanup)
        }
    }

    static func event(_ n: Int) -> ProposedEvent {
        ProposedEvent(type: "Searched", data: Data(#"{"keyword":"k\#(n)"}"#.utf8))
    }

    /// Appends `count` events over a few streams in batches of varying sizes.
    static func fill(_ store: any EventStore, count: Int, from start: Int = 0) throws {
        var n = start
        var batch = 1
        while n < start + count {
            let size = min(batch, start + count - n)
            try store.append((0..<size).map { event(n + $0) }, to: "user-\(n % 7)", expectedVersion: .any)
            n += size
            batch = batch % 5 + 1
        }
    }

    /// Extends the kept tree in steps of `limit` until it has `size` leaves (on PostgreSQL,
    /// events held back behind other tests' transactions come within seconds).
    /// - Returns: how many leaves were added.
    @discardableResult
    static func extendFully(_ store: any MerkleTreeStore, to size: UInt64, limit: Int = 1_000) throws -> Int {
        let deadline = Date().addingTimeInterval(20)
        var added = 0
        while try store.merkleTreeState().size < size, Date() < deadline {
            let step = try store.extendMerkleTree(limit: limit)
            added += step.added
            if step.added == 0 { Thread.sleep(forTimeInterval: 0.01) }
        }
        return added
    }

    /// The leaf hashes of the whole log, from its events (the independent computation).
    static func leafHashes(_ store: any EventStore) throws -> [[UInt8]] {
        var hashes: [[UInt8]] = []
        var cursor: Int64 = 0
        while true {
            let batch = try store.readAll(after: cursor, limit: 500)
            hashes += try batch.map { try LogTree.leafHash(of: $0) }
            guard let last = batch.last else { return hashes }
            cursor = last.position
        }
    }

    @Test("extended in small steps while appends go on, the kept tree has every root, inclusion and consistency proof of the log's tree", arguments: Kind.allCases)
    func keptProofsEqualComputed(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        let store = fixture.store
        var total = 0
        for (count, limit) in [(1, 1), (2, 1), (5, 3), (29, 7), (64, 64), (120, 1_000), (79, 13)] {
            try Self.fill(store, count: count, from: total)
            total += count
            let added = try Self.extendFully(store, to: UInt64(total), limit: limit)
            #expect(added == count)
            #expect(try store.merkleTreeState().size == UInt64(total))
        }
        let leaves = try Self.leafHashes(store)
        #expect(leaves.count == 300)
        #expect(try KeptTreeCheck.verify(store) == 300)
        for size in UInt64(1)...300 {
            let expected = try MerkleProofBuilder.build(size: size, leafHashes: leaves).root
            #expect(try LogTree.root(of: store, size: size) == expected, "size \(size)")
        }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<60 {
            let size = UInt64.random(in: 1...300, using: &random)
            let index = UInt64.random(in: 0..<size, using: &random)
            let ranges = try MerkleProof.inclusionRanges(index: index, size: size)
            let kept = try LogTree.proof(of: store, size: size, ranges: ranges)
            #expect(kept.proof == (try MerkleProofBuilder.build(size: size, ranges: ranges, leafHashes: leaves).proof))
            try MerkleProof.verifyInclusion(leafHash: leaves[Int(index)], index: index, size: size, path: kept.proof, root: kept.root)
            let from = UInt64.random(in: 1...size, using: &random)
            let consistency = try LogTree.proof(of: store, size: size, ranges: try MerkleProof.consistencyRanges(from: from, to: size))
            try MerkleProof.verifyConsistency(from: from, to: size, fromRoot: try LogTree.root(of: store, size: from),
                                              toRoot: consistency.root, path: consistency.proof)
        }
        // An event's leaf comes from the kept tree: the 150th event is leaf 149.
        let events = try store.readAll(after: 0, limit: 300)
        let found = try #require(try LogTree.leaf(of: events[149].id, in: store))
        #expect(found.index == 149 && found.event.id == events[149].id)
        #expect(try store.merkleLeafIndex(position: events[149].position) == 149)
        #expect(try LogTree.size(of: store) == 300)
    }

    static let largeSizes: [UInt64] = [1_000_000, 1 << 20, (1 << 20) + 1, 999_999_937]

    @Test("the proof of one event in a tree of n leaves needs O(log n) kept subtrees", arguments: Self.largeSizes)
    func proofsReadLogarithmicNodes(size: UInt64) throws {
        var random = SystemRandomNumberGenerator()
        let log = UInt64(64 - size.leadingZeroBitCount)
        for _ in 0..<200 {
            let index = UInt64.random(in: 0..<size, using: &random)
            var keys = Set(MerkleNodeKey.parts(of: 0..<size))
            for range in try MerkleProof.inclusionRanges(index: index, size: size) { keys.formUnion(MerkleNodeKey.parts(of: range)) }
            #expect(UInt64(keys.count) <= 3 * log, "index \(index): \(keys.count) subtrees")
            let from = UInt64.random(in: 1...size, using: &random)
            var consistency = Set(MerkleNodeKey.parts(of: 0..<size)).union(MerkleNodeKey.parts(of: 0..<from))
            for range in try MerkleProof.consistencyRanges(from: from, to: size) { consistency.formUnion(MerkleNodeKey.parts(of: range)) }
            #expect(UInt64(consistency.count) <= 4 * log, "from \(from): \(consistency.count) subtrees")
        }
    }

    @Test("two handles extending the tree at once write each leaf once, and the tree checks", arguments: Kind.allCases)
    func concurrentExtenders(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        let other = try fixture.open()
        try Self.fill(fixture.store, count: 400)
        let failures = Failures()
        DispatchQueue.concurrentPerform(iterations: 2) { worker in
            let store = worker == 0 ? fixture.store : other
            do {
                while try store.extendMerkleTree(limit: 17).added > 0 {}
            } catch {
                failures.add("\(error)")
            }
        }
        // SQLite's writer lock may make one of them give up (busy); it is then simply behind.
        try Self.extendFully(fixture.store, to: 400)
        #expect(failures.all.allSatisfy { $0.contains("locked") }, "\(failures.all)")
        #expect(try KeptTreeCheck.verify(fixture.store) == 400)
    }

    @Test("an erasure keeps every leaf: the kept tree checks and its roots stay", arguments: Kind.allCases)
    func erasureKeepsLeaves(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        try Self.fill(fixture.store, count: 40)
        let before = try LogTree.root(of: fixture.store, size: 40)
        _ = try fixture.store.erase(Erasure.Request(stream: "user-3", reason: "test", operatorName: "tests"))
        #expect(try LogTree.root(of: fixture.store, size: 40) == before)
        // The erasure appended two events: its marker in user-3's stream and its UserErased event.
        try Self.extendFully(fixture.store, to: 42)
        #expect(try KeptTreeCheck.verify(fixture.store) == 42)
    }

    /// Each way of rewriting the kept tree (its tiles, schema 7), as its owner could, and the
    /// subtree verify must name. For 37 leaves: level-0 tiles 0 and 1 (16 leaves each) and 2
    /// (5), and the level-4 tile 0 (the roots of the first two).
    static func tampers(_ t: (String) -> String, kind: Kind) -> [(name: String, sql: String, key: MerkleNodeKey)] {
        let triggers = kind == .sqliteFile
            ? "DROP TRIGGER merkle_tiles_append_only_update; DROP TRIGGER merkle_tiles_append_only_delete; "
            : "ALTER TABLE \(t("merkle_tiles")) DISABLE TRIGGER merkle_tiles_append_only; "
        let hex = String(repeating: "ab", count: 32)
        // The tile's hashes with the one at `offset` replaced by 0xab…, or cut out.
        func splice(_ offset: Int, cut: Bool = false) -> String {
            let (before, after) = (offset * 32, (offset + 1) * 32 + 1)
            return kind == .sqliteFile
                ? "CAST(substr(hashes, 1, \(before)) || \(cut ? "''" : "X'\(hex)'") || substr(hashes, \(after)) AS BLOB)"
                : "substring(hashes FROM 1 FOR \(before)) || \(cut ? "''::bytea" : "'\\x\(hex)'::bytea") || substring(hashes FROM \(after))"
        }
        let one = kind == .sqliteFile ? "X'\(hex)'" : "'\\x\(hex)'::bytea"
        let tiles = t("merkle_tiles")
        return [
            ("a leaf rewritten", triggers + "UPDATE \(tiles) SET hashes = \(splice(5)) WHERE level = 0 AND idx = 0;", MerkleNodeKey(level: 0, index: 5)),
            ("a node rewritten", triggers + "UPDATE \(tiles) SET hashes = \(splice(1)) WHERE level = 4 AND idx = 0;", MerkleNodeKey(level: 4, index: 1)),
            ("a tile's position changed", triggers + "UPDATE \(tiles) SET first_position = first_position + 1000 WHERE level = 0 AND idx = 1;", MerkleNodeKey(level: 0, index: 16)),
            ("a tile's last position changed", triggers + "UPDATE \(tiles) SET last_position = last_position - 1 WHERE level = 0 AND idx = 1;", MerkleNodeKey(level: 0, index: 31)),
            ("a leaf cut out of a tile", triggers + "UPDATE \(tiles) SET hashes = \(splice(7, cut: true)) WHERE level = 0 AND idx = 0;", MerkleNodeKey(level: 0, index: 15)),
            ("a middle tile removed", triggers + "DELETE FROM \(tiles) WHERE level = 0 AND idx = 1;", MerkleNodeKey(level: 0, index: 16)),
            ("a node removed", triggers + "DELETE FROM \(tiles) WHERE level = 4 AND idx = 0;", MerkleNodeKey(level: 4, index: 0)),
            ("a node added above the top", triggers + "INSERT INTO \(tiles) (level, idx, hashes) VALUES (8, 0, \(one));", MerkleNodeKey(level: 8, index: 0)),
        ]
    }

    @Test("a tampered kept tree is detected and the subtree named", arguments: Kind.allCases)
    func tamperedTreeNamed(kind: Kind) throws {
        for tamper in Self.tampers({ _ in "" }, kind: kind) {
            let fixture = try Self.make(kind); defer { fixture.cleanup() }
            try Self.fill(fixture.store, count: 37)
            try Self.extendFully(fixture.store, to: 37)
            #expect(try KeptTreeCheck.verify(fixture.store) == 37)
            let sql = try #require(Self.tampers(fixture.table, kind: kind).first { $0.name == tamper.name }).sql
            let result = try fixture.sql(sql)
            try #require(result.status == 0, "\(tamper.name): \(result)")
            do {
                _ = try KeptTreeCheck.verify(fixture.store)
                Issue.record("\(tamper.name): not detected")
            } catch let failure as KeptTreeFailure {
                #expect(failure.key == tamper.key, "\(tamper.name): \(failure)")
            }
        }
    }

    @Test("events rewritten with their chains recomputed, beside an untouched kept tree: the leaf is named", arguments: Kind.allCases)
    func rewrittenChainHashNamed(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        try Self.fill(fixture.store, count: 20)
        try Self.extendFully(fixture.store, to: 20)
        let target = try fixture.store.readAll(after: 0, limit: 20)[12]
        let update = kind == .sqliteFile
            ? "DROP TRIGGER events_append_only_update; UPDATE events SET hash = '\(String(repeating: "cd", count: 32))' WHERE position = \(target.position);"
            : "ALTER TABLE \(fixture.table("events")) DISABLE TRIGGER events_append_only; UPDATE \(fixture.table("events")) SET hash = '\(String(repeating: "cd", count: 32))' WHERE position = \(target.position);"
        let result = try fixture.sql(update)
        try #require(result.status == 0, "\(result)")
        #expect(throws: KeptTreeFailure(key: MerkleNodeKey(level: 0, index: 12),
                                        reason: "(position \(target.position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")) {
            try KeptTreeCheck.verify(fixture.store)
        }
    }
}

/// Errors collected from several threads.
final class Failures: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ text: String) { lock.withLock { list.append(text) } }
    var all: [String] { lock.withLock { list } }
}
