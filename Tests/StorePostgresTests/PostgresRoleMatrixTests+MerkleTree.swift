import EventLog
import Foundation
@testable import StorePostgres
import Testing

extension PostgresRoleMatrixTests {
    @Test("the kept Merkle tree and the recorded checkpoints: no role but the owner writes them; the app extends the tree only through merkle_put and merkle_extend, the auditor not at all")
    func keptTreeOwnerOnly() throws {
        let d = try Self.deploy(); defer { d.drop() }
        let s = d.schema.quoted
        let forgeries = [
            "INSERT INTO \(s).merkle_tiles VALUES (0, 0, sha256('x'), 1, 1)",
            "INSERT INTO \(s).merkle_tiles VALUES (4, 0, sha256('x'), NULL, NULL)",
            "UPDATE \(s).merkle_tiles SET hashes = hashes || sha256('x')",
            "DELETE FROM \(s).merkle_tiles",
            "TRUNCATE \(s).merkle_tiles",
            "INSERT INTO \(s).signed_checkpoints VALUES (1, 1, 6, 'evtool', '')",
            "DELETE FROM \(s).signed_checkpoints",
            "ALTER TABLE \(s).merkle_tiles DISABLE TRIGGER merkle_tiles_append_only",
            "LOCK TABLE \(s).merkle_tiles IN EXCLUSIVE MODE",
            "SELECT \(s).merkle_tile_root(sha256('x') || sha256('y'))",
        ]
        for role in [d.app, d.auditor] {
            let connection = try PostgresConnection(conninfo: d.url(for: role))
            _ = try connection.execute("BEGIN")
            for statement in forgeries + (role == d.auditor ? ["SELECT * FROM \(s).merkle_extend(10)",
                                                            "SELECT * FROM \(s).merkle_put(0, 1, ARRAY[0], ARRAY[0::bigint], ARRAY[sha256('x')], ARRAY[1::bigint], ARRAY[1::bigint], ARRAY[]::bigint[], ARRAY[]::text[])"] : []) {
                let outcome = Self.attempt(connection, statement)
                #expect(!outcome.allowed, "\(role) was allowed: \(statement)")
                #expect(outcome.error.contains("permission denied") || outcome.error.contains("must be owner"),
                        "\(role): \(statement): \(outcome.error)")
            }
            _ = try connection.execute("COMMIT")
        }
        // The auditor's proofs and verify leave the tree as it is (it may not extend it) and
        // are made by streaming the log.
        let asAuditor = try PostgresEventStore(url: d.url(for: d.auditor), schema: d.schema.name, createIfMissing: false)
        #expect(throws: EventStoreError.self) { try asAuditor.extendMerkleTree(limit: 10) }
        #expect(try LogTree.extendKept(asAuditor) == MerkleTreeState(size: 0, position: 0))
        #expect(try LogTree.root(of: asAuditor, size: 6) == LogTree.streamedRoot(of: asAuditor, size: 6))
        // The app extends it (its follower computes the hashes, merkle_put writes the next tiles as the owner).
        let asApp = try PostgresEventStore(url: d.url(for: d.app), schema: d.schema.name)
        #expect(try PostgresMigrationTests.eventually(6) { try asApp.extendMerkleTree(limit: 100).added } == 6)
        #expect(try KeptTreeCheck.verify(asAuditor) == 6)
        #expect(try LogTree.root(of: asAuditor, size: 6) == LogTree.streamedRoot(of: asAuditor, size: 6))
    }
}
