import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// The kept Merkle tree and the recorded checkpoints through the real binary: `seal --key`
/// records its checkpoint, `seal --list` shows them, `verify` checks each recorded checkpoint
/// and the kept tree, and a removed or forged record is detected against the checkpoint file.
/// On SQLite files and PostgreSQL.
@Suite("Audit: recorded checkpoints and the kept tree through the CLI")
struct RecordedCheckpointTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    struct Setup {
        let base: CheckpointTests.Setup
        let kind: Kind
        let url: String
        let schema: String
        var cli: CLI { base.cli }
        func cleanup() {
            if kind == .postgres { TestStores.dropPostgres(url: url, schema: schema) }
            base.directory.remove()
        }

        /// Runs SQL as the store's owner, with the append-only triggers of `tables` off.
        func tamper(_ sql: String, tables: [String]) throws {
            let result: Processes.Result
            switch kind {
            case .sqlite:
                let drops = tables.flatMap { ["DROP TRIGGER IF EXISTS \($0)_append_only_update;", "DROP TRIGGER IF EXISTS \($0)_append_only_delete;"] }
                result = try Processes.run(Processes.sqlite3, [base.path, drops.joined() + sql.replacingOccurrences(of: "S.", with: "")])
            case .postgres:
                let disables = tables.map { "ALTER TABLE \(schema).\($0) DISABLE TRIGGER \($0)_append_only;" }
                result = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                                            disables.joined() + sql.replacingOccurrences(of: "S.", with: "\(schema).")])
            }
            #expect(result.status == 0, "\(result)")
        }
    }

    static func setup(_ kind: Kind) throws -> Setup {
        switch kind {
        case .sqlite:
            return Setup(base: try CheckpointTests.setup(), kind: kind, url: "", schema: "")
        case .postgres:
            let url = try TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            let store = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
            return Setup(base: try CheckpointTests.setup(store: store), kind: kind, url: url, schema: schema)
        }
    }

    @Test("seal --key records its checkpoint; seal --list shows each as printed; verify checks them and the kept tree", arguments: Kind.allCases)
    func recordedAndListed(kind: Kind) throws {
        let setup = try Self.setup(kind); defer { setup.cleanup() }
        let empty = try setup.cli.run("seal", "--list")
        #expect(empty.status == 0 && empty.output.isEmpty && empty.errors.contains("No checkpoints recorded"), "\(empty)")
        let first = try CheckpointTests.seal(setup.base, "cp-1.txt")
        #expect(try setup.cli.run("demo", "--users", "2", "--actions", "10", "--seed", "8").status == 0)
        // An unsigned seal records no checkpoint.
        #expect(try setup.cli.run("seal").status == 0)
        let second = try CheckpointTests.seal(setup.base, "cp-2.txt")
        let list = try setup.cli.run("seal", "--list")
        #expect(list.status == 0, "\(list)")
        let texts = [try String(contentsOfFile: first, encoding: .utf8), try String(contentsOfFile: second, encoding: .utf8)]
        let sizes = try texts.map { try Checkpoint(text: $0).size }
        let lines = list.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0].hasPrefix("checkpoint 1: seal 1, \(sizes[0]) events, recorded 20"), "\(list)")
        #expect(list.output.contains(texts[0]) && list.output.contains(texts[1]), "\(list)")
        #expect(list.output.contains("checkpoint 2: seal 3, \(sizes[1]) events, recorded 20"), "\(list)")
        let verified = try setup.cli.run("verify", "--checkpoint", first, "--public-key", setup.base.publicKey)
        #expect(verified.status == 0 && verified.output.hasSuffix("; recorded in the store as checkpoint 1\n"), "\(verified)")
        #expect(try setup.cli.run("verify").status == 0)
        let refused = try setup.cli.run("seal", "--list", "--key", setup.base.privateKey)
        #expect(refused.status == 64 && refused.errors.hasPrefix("Error: '--list' seals nothing"), "\(refused)")
    }

    @Test("a removed recorded checkpoint is named against the checkpoint file; a forged one by verify alone", arguments: Kind.allCases)
    func removedOrForged(kind: Kind) throws {
        let setup = try Self.setup(kind); defer { setup.cleanup() }
        let first = try CheckpointTests.seal(setup.base, "cp-1.txt")
        let second = try CheckpointTests.seal(setup.base, "cp-2.txt")
        // Forged: the record's text replaced by another (here the second checkpoint's text).
        let secondText = try String(contentsOfFile: second, encoding: .utf8).replacingOccurrences(of: "'", with: "''")
        try setup.tamper("UPDATE S.signed_checkpoints SET note = '\(secondText)' WHERE checkpoint = 1;", tables: ["signed_checkpoints"])
        var result = try setup.cli.run("verify")
        #expect(result.status == 65 && result.errors.hasPrefix("Error: the log fails verification: the recorded checkpoint 1 "), "\(result)")
        result = try setup.cli.run("verify", "--checkpoint", first)
        #expect(result.status == 65 && result.errors.contains("the recorded checkpoint 1"), "\(result)")
        // Removed: verify alone cannot know; against the file it is named.
        try setup.tamper("DELETE FROM S.signed_checkpoints WHERE checkpoint = 1;", tables: ["signed_checkpoints"])
        #expect(try setup.cli.run("verify").status == 0)
        result = try setup.cli.run("verify", "--checkpoint", first, "--public-key", setup.base.publicKey)
        #expect(result.status == 65 && result.errors.contains("the recorded checkpoint for seal 1 (") && result.errors.contains("is not recorded in the store: it was removed"), "\(result)")
        result = try setup.cli.run("verify", "--checkpoint", second)
        #expect(result.status == 0 && result.output.hasSuffix("; recorded in the store as checkpoint 2\n"), "\(result)")
    }

    @Test("a rewritten node of the kept tree fails verify and seal (exit 65, named); prove then fails against the checkpoint", arguments: Kind.allCases)
    func tamperedTreeThroughCLI(kind: Kind) throws {
        let setup = try Self.setup(kind); defer { setup.cleanup() }
        let checkpoint = try CheckpointTests.seal(setup.base, "cp-1.txt")
        // The first node kept at level 4 (the root of leaves 0–15), in the level-4 tile.
        let hex = String(repeating: "ab", count: 32)
        let spliced = kind == .sqlite ? "CAST(X'\(hex)' || substr(hashes, 33) AS BLOB)" : "'\\x\(hex)'::bytea || substring(hashes FROM 33)"
        try setup.tamper("UPDATE S.merkle_tiles SET hashes = \(spliced) WHERE level = 4 AND idx = 0;", tables: ["merkle_tiles"])
        var result = try setup.cli.run("verify")
        #expect(result.status == 65 && result.errors == "Error: the log fails verification: the kept Merkle tree's node (level 4, index 0) is not the hash of its children (the 16 kept subtrees of level 0 below it): it was rewritten\n", "\(result)")
        result = try setup.cli.run("seal")
        #expect(result.status == 65 && result.errors.contains("node (level 4, index 0)"), "\(result)")
        let id = try CheckpointTests.eventIDs(setup.cli)[3]
        result = try setup.cli.run("prove", "--event", id, "--checkpoint", checkpoint)
        #expect(result.status == 65 && result.errors.contains("gives an inclusion proof for leaf 3 that does not hold") && result.output.isEmpty, "\(result)")
    }
}
