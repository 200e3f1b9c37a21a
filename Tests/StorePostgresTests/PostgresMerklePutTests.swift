import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// `merkle_put` (schema 13): the tiles of the kept Merkle tree are computed by the follower in
/// the app and written through this owner's function. What the database still guarantees, to
/// the app role that may call it: no kept hash is ever changed, removed or reordered, and only
/// tiles of exactly the shape the tree's growth gives are written; the values of the next
/// hashes are the caller's, and `verify` and `seal` recompute them from the log.
@Suite("PostgreSQL: the kept tree's tiles computed in the app, written through merkle_put")
struct PostgresMerklePutTests {
    /// A kept level-0 tile `(0, 0)` of the first six events, grown by one hash (`extra`) to
    /// cover the seventh, or with `kept` in place of its kept hashes; `last` the position of
    /// the event the call claims for its last leaf (SQL expressions over the app's schema).
    static func put(_ s: String, size: Int = 6, newSize: Int = 7, kept: String = "t.hashes", extra: String = "sha256('forged')",
                    last: String = "(SELECT position FROM {{s}}.events ORDER BY position OFFSET 6 LIMIT 1)",
                    more: (levels: String, idx: String, hashes: String, first: String, last: String)? = nil,
                    check: String = "ARRAY[]::bigint[], ARRAY[]::text[]") -> String {
        let tail = more.map { (", " + $0.levels, ", " + $0.idx, ", " + $0.hashes, ", " + $0.first, ", " + $0.last) } ?? ("", "", "", "", "")
        return """
            SELECT p.written FROM (SELECT hashes, first_position FROM {{s}}.merkle_tiles WHERE level = 0 AND idx = 0) AS t,
            LATERAL {{s}}.merkle_put(\(size), \(newSize), ARRAY[0\(tail.0)]::integer[], ARRAY[0\(tail.1)]::bigint[], ARRAY[\(kept) || \(extra)\(tail.2)]::bytea[],
                                   ARRAY[t.first_position\(tail.3)]::bigint[], ARRAY[\(last)\(tail.4)]::bigint[], \(check)) AS p
            """.replacingOccurrences(of: "{{s}}", with: s)
    }

    static func tiles(_ s: String) throws -> String? {
        try TestDatabase.execute("SELECT string_agg(level || '/' || idx || ':' || encode(hashes, 'hex') || ':' || coalesce(first_position, 0) || '-' || coalesce(last_position, 0), ' ' ORDER BY level, idx) FROM \(s).merkle_tiles")
    }

    @Test("the app may write only the next tiles of the tree's shape: a kept hash changed, a tile too many or missing, a wrong level, positions that go back, each refused with nothing written; a stale size writes nothing; the auditor may not call it")
    func shapeAndKeptHashesEnforced() throws {
        let d = try PostgresRoleMatrixTests.deploy(); defer { d.drop() }
        let s = d.schema.quoted
        let owner = try PostgresEventStore(url: d.url, schema: d.schema.name)
        let asApp = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name)
        #expect(try PostgresMigrationTests.eventually(6) { try asApp.extendMerkleTree(limit: 100).added } == 6)
        for n in 0..<20 { try owner.append(event("Searched", #"{"n":\#(n)}"#), to: "user-\(n % 4)", expectedVersion: .any) }
        _ = try PostgresMigrationTests.eventually(26, summing: false) { try owner.readAll(after: 0, limit: 100).count }
        let before = try Self.tiles(d.schema.name)
        let refused: [(String, String, String)] = [
            ("a kept hash changed", Self.put(s, kept: "sha256('x') || substring(t.hashes FROM 33)"), "append-only"),
            ("a kept hash dropped (the others shifted)", Self.put(s, kept: "substring(t.hashes FROM 33)", extra: "sha256('f') || sha256('g')"), "append-only"),
            ("the last leaf's position before the tree's last",
             Self.put(s, last: "(SELECT position FROM \(s).events ORDER BY position OFFSET 2 LIMIT 1)"), "not those"),
            ("a level-0 tile too many", Self.put(s, more: ("0", "1", "sha256('y')", "(SELECT max(position) FROM \(s).events)", "(SELECT max(position) FROM \(s).events)")), "not those"),
            ("a level-4 tile the growth does not reach", Self.put(s, more: ("4", "0", "sha256('y')", "NULL", "NULL")), "not those"),
            ("a level that is not a multiple of 4", Self.put(s, more: ("2", "0", "sha256('y')", "NULL", "NULL")), "not those"),
            ("the open tile missing (only the next one given)", """
                SELECT written FROM \(s).merkle_put(6, 20, ARRAY[0], ARRAY[1::bigint], ARRAY[sha256('a') || sha256('b') || sha256('c') || sha256('d')],
                    ARRAY[(SELECT position FROM \(s).events ORDER BY position OFFSET 16 LIMIT 1)], ARRAY[(SELECT position FROM \(s).events ORDER BY position OFFSET 19 LIMIT 1)], ARRAY[]::bigint[], ARRAY[]::text[])
                """, "not those"),
            ("a new size the tiles do not end at", Self.put(s, newSize: 8), "not those"),
            ("arrays of different lengths", "SELECT written FROM \(s).merkle_put(6, 7, ARRAY[0, 0], ARRAY[0::bigint], ARRAY[sha256('a')], ARRAY[1::bigint], ARRAY[1::bigint], ARRAY[]::bigint[], ARRAY[]::text[])", "do not describe"),
            ("check arrays of different lengths", "SELECT written FROM \(s).merkle_put(6, 7, ARRAY[0], ARRAY[0::bigint], ARRAY[sha256('a')], ARRAY[1::bigint], ARRAY[1::bigint], ARRAY[1::bigint], ARRAY[]::text[])", "do not describe"),
            ("no leaf added", "SELECT written FROM \(s).merkle_put(6, 6, ARRAY[4], ARRAY[0::bigint], ARRAY[sha256('a')], ARRAY[NULL::bigint], ARRAY[NULL::bigint], ARRAY[]::bigint[], ARRAY[]::text[])", "add no leaf"),
        ]
        let app = try PostgresConnection(conninfo: d.url(for: d.app))
        _ = try app.execute("BEGIN")
        for (label, sql, reason) in refused {
            let outcome = PostgresRoleMatrixTests.attempt(app, sql)
            #expect(!outcome.allowed, "\(label) was written")
            #expect(outcome.error.contains(reason), "\(label): \(outcome.error)")
        }
        _ = try app.execute("COMMIT")
        // A stale size: another follower extended the tree first; nothing is written. And an
        // event that no longer has the chain hash the caller built on: nothing is written.
        #expect(try TestDatabase.execute(Self.put(s, size: 5, newSize: 6)) == "f")
        #expect(try TestDatabase.execute(Self.put(s, check: "ARRAY[(SELECT min(position) FROM \(s).events)], ARRAY['\(String(repeating: "0", count: 64))']")) == "f")
        #expect(try TestDatabase.execute(Self.put(s, size: 5, newSize: 6, check: "ARRAY[(SELECT min(position) FROM \(s).events)], ARRAY[(SELECT hash FROM \(s).events ORDER BY position LIMIT 1)]")
            .replacingOccurrences(of: "p.written", with: "p.checked || '/' || p.written")) == "true/false")
        #expect(try Self.tiles(d.schema.name) == before, "nothing refused was kept")
        // The auditor may not call it at all.
        let auditor = try PostgresConnection(conninfo: d.url(for: d.auditor))
        _ = try auditor.execute("BEGIN")
        let outcome = PostgresRoleMatrixTests.attempt(auditor, Self.put(s, extra: "sha256('x')"))
        #expect(!outcome.allowed && outcome.error.contains("permission denied"), "\(outcome.error)")
        _ = try auditor.execute("COMMIT")
        // The app's follower then extends it (merkle_extend for the events the owner appended,
        // then merkle_put for a block its own handle appended), and the tree is the log's.
        #expect(try PostgresMigrationTests.eventually(20) { try asApp.extendMerkleTree(limit: 100).added } == 20)
        try asApp.append((0..<5).map { event("Searched", #"{"m":\#($0)}"#) }, to: "user-app", expectedVersion: .any)
        #expect(try asApp.extendMerkleTree(limit: 100).added == 5)
        let asAuditor = try PostgresEventStore(url: d.url(for: d.auditor), schema: d.schema.name, createIfMissing: false)
        #expect(try KeptTreeCheck.verify(asAuditor) == 31)
        #expect(try LogTree.root(of: asAuditor, size: 31) == LogTree.streamedRoot(of: asAuditor, size: 31))
    }

    @Test("a next hash of the app's own making is written (its shape is right) but never trusted: verify names the leaf, seal's check refuses the tree, and an inclusion proof from it does not hold")
    func forgedNextHashIsCaught() throws {
        let d = try PostgresRoleMatrixTests.deploy(); defer { d.drop() }
        let s = d.schema.quoted
        let owner = try PostgresEventStore(url: d.url, schema: d.schema.name)
        let asApp = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name)
        #expect(try PostgresMigrationTests.eventually(6) { try asApp.extendMerkleTree(limit: 100).added } == 6)
        try owner.append(event("Searched", #"{"n":7}"#), to: "user-9", expectedVersion: .noStream)
        _ = try PostgresMigrationTests.eventually(7, summing: false) { try owner.readAll(after: 0, limit: 100).count }
        #expect(PostgresResultText.value(try PostgresConnection(conninfo: d.url(for: d.app)).execute(Self.put(s))) == "t")
        #expect(try asApp.merkleTreeState().size == 7)
        #expect {
            try KeptTreeCheck.verify(asApp)
        } throws: { error in
            guard let failure = error as? KeptTreeFailure else { return false }
            return failure.key == MerkleNodeKey(level: 0, index: 6)
        }
        #expect(throws: KeptTreeFailure.self) { try KeptTreeCheck.extendAndVerify(asApp) }
        let seventh = try #require(owner.readAll(after: 0, limit: 100).last)
        #expect(throws: MerkleProofError.self) {
            _ = try LogTree.inclusionProof(of: asApp, index: 6, size: 7, leafHash: try LogTree.leafHash(of: seventh))
        }
    }
}
