import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

extension SQLiteMigrationTests {
    @Test("a schema-6 file whose kept tree was filled as schema 6 kept it (a leaf row and node rows) upgrades to tiles: the old tables go, the tree is built again from the log and verifies")
    func upgradeFromSchema6KeptTree() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        try Self.makeFile(path, version: 6)
        // The tree as schema 6's follower wrote it: each leaf (hex) and each completed subtree.
        let hashes = try Processes.run(Processes.sqlite3, [path, "SELECT position || ' ' || hash FROM events ORDER BY position"])
        let rows = hashes.output.split(separator: "\n").map { $0.split(separator: " ") }
        try #require(rows.count == 3)
        let leaves = try rows.map { MerkleHash.leaf(try #require([UInt8](hexadecimal: String($0[1])))) }
        var script = ""
        for (index, row) in rows.enumerated() {
            script += "INSERT INTO merkle_leaves (leaf, position, hash) VALUES (\(index), \(row[0]), '\(leaves[index].hexString)');\n"
        }
        script += "INSERT INTO merkle_nodes (level, idx, hash) VALUES (1, 0, '\(MerkleHash.node(leaves[0], leaves[1]).hexString)');\n"
        let filled = try Processes.run(Processes.sqlite3, [path, script])
        try #require(filled.status == 0, "\(filled)")

        let store = try SQLiteEventStore(path: path)
        #expect(try store.schemaVersion() == SQLiteEventStore.schemaVersion)
        let tables = try Processes.run(Processes.sqlite3, [path, "SELECT group_concat(name, ',') FROM (SELECT name FROM sqlite_schema WHERE type = 'table' AND name LIKE 'merkle%' ORDER BY name)"])
        #expect(tables.output.trimmingCharacters(in: .whitespacesAndNewlines) == "merkle_tiles", "\(tables)")
        #expect(try store.merkleTreeState().size == 0)
        try store.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-1", expectedVersion: .exactly(2))
        #expect(try KeptTreeCheck.extendAndVerify(store) == 4)
        #expect(try LogTree.root(of: store, size: 3) == MerkleProofBuilder.build(size: 3, leafHashes: leaves).root)
        #expect(try LogTree.root(of: store, size: 4) == LogTree.streamedRoot(of: store, size: 4))
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 4)
    }
}
