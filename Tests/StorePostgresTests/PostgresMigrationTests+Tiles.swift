import EventLog
import Foundation
@testable import StorePostgres
import Testing

extension PostgresMigrationTests {
    @Test("a schema-6 store whose tree its own merkle_extend filled upgrades to tiles: the old tables go, merkle_extend keeps its callers, the tree is built again and verifies")
    func upgradeFromSchema6KeptTree() throws {
        let url = try TestDatabase.url()
        let name = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: name) }
        let schema = try PostgresSchema(name: name)
        for step in 0..<6 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        try Self.appendWithOldFunction(name)
        // Schema 6's follower: one leaf row per event and a row per completed subtree.
        // Both followers take the log's safe prefix only, and on the suite's shared server another
        // test's open transaction holds that back for a while (docs/explanation/ordering.md): wait for it.
        #expect(try Self.eventually(4) { Int(try TestDatabase.execute("SELECT added FROM \(name).merkle_extend(100)") ?? "0") ?? 0 } == 4)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).merkle_leaves") == "4")
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).merkle_nodes") == "3")
        let oldLeaves = try #require(try TestDatabase.execute("SELECT string_agg(encode(hash, 'hex'), ',' ORDER BY leaf) FROM \(name).merkle_leaves"))
            .split(separator: ",").compactMap { [UInt8](hexadecimal: String($0)) }
        let before = try MerkleProofBuilder.build(size: 4, leafHashes: oldLeaves).root

        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try TestDatabase.execute("SELECT to_regclass('\(name).merkle_leaves') IS NULL AND to_regclass('\(name).merkle_nodes') IS NULL") == "t")
        #expect(try store.merkleTreeState().size == 0)
        #expect(try Self.eventually(4, summing: false) { Int(try KeptTreeCheck.extendAndVerify(store) ?? 0) } == 4)
        #expect(try LogTree.root(of: store, size: 4) == before)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).merkle_tiles") == "1")
        try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-3", expectedVersion: .noStream)
        #expect(try Self.eventually(5, summing: false) { Int(try KeptTreeCheck.extendAndVerify(store) ?? 0) } == 5)
        #expect(try LogTree.root(of: store, size: 5) == LogTree.streamedRoot(of: store, size: 5))
    }

    /// Calls `step` until its results (their sum, or the last one) reach `target`, for at most
    /// 30 s; returns what they came to.
    /// Today's roles script for a store made at a schema before 13: without the grants on
    /// `merkle_put` and `append_returning_hashes`, which that schema lacks (the upgrade grants
    /// them to merkle_extend's and append's callers), nor the one on `unfinished_copy` (schema 16 grants it to
    /// the readers of the events).
    static func rolesBeforeSchema13(_ script: String) -> String {
        script.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains(".merkle_put(") && !$0.contains(".append_returning_hashes(") && !$0.contains(".unfinished_copy ") }
            .joined(separator: "\n")
    }

    static func eventually(_ target: Int, summing: Bool = true, _ step: () throws -> Int) throws -> Int {
        let deadline = Date().addingTimeInterval(30)
        var total = 0
        while true {
            let value = try step()
            total = summing ? total + value : value
            if total >= target || Date() > deadline { return total }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }
}
