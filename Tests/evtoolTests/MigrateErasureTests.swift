import Foundation
import Testing
import TestSupport

/// `migrate` of a log with erased users, both ways between SQLite and PostgreSQL: the erased
/// events go with the digests the source kept, so the copy's chain and tree are the source's.
/// A checkpoint signed on the source verifies on the copy, a proof made on the source checks
/// against a checkpoint signed on the copy, verify accepts the tombstones by their digests,
/// and a backup taken before the erasure imports into the copy as "already there" without
/// bringing the erased data back.
@Suite(.serialized)
struct MigrateErasureTests {
    @Test func sqliteToPostgres() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let target = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        // Positions the target burned before the copy (an interrupted batch, a crash): the
        // copy's positions are then not the source's, and its erasures must still verify.
        #expect(try Processes.run(Processes.evtool, ["init", "--store", target]).status == 0)
        let burned = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "SELECT setval('\(schema).position_seq', 500)"])
        #expect(burned.status == 0, "\(burned)")
        try check(source: "sqlite:\(directory.path)/source.sqlite", target: target, directory)
    }

    @Test func postgresToSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        try check(source: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, target: "sqlite:\(directory.path)/target.sqlite", directory)
    }

    func check(source: String, target: String, _ directory: TemporaryDirectory) throws {
        let from = CLI(store: source, directory: directory.path), to = CLI(store: target, directory: directory.path)
        let keys = try CLI.bare("keys", "create", "--out", directory.path + "/keys")
        #expect(keys.status == 0, "\(keys)")
        let (privateKey, publicKey) = (directory.path + "/keys/checkpoint-key.pem", directory.path + "/keys/checkpoint-key.pub.pem")
        for (user, listing) in [("ann", "L1"), ("bob", "L2"), ("bob", "L3"), ("cy", "L4")] {
            let recorded = try from.run("favorite", "--user", user, "--listing", listing, "--name", "Show \(listing)", "--venue", "Hall",
                                        "--date", "2027-01-05T20:00:00Z", "--category", "music")
            #expect(recorded.status == 0, "\(recorded)")
        }
        let bobsFirst = try #require(try CheckpointTests.eventIDs(from).dropFirst(1).first)
        let backup = try from.run("export")
        #expect(backup.status == 0, "\(backup)")
        let backupFile = try from.file("backup.jsonl", backup.output)
        #expect(try from.run("forget", "--user", "bob", "--reason", "ticket 7", "--by", "ops").status == 0)
        // bob carries on after the erasure: his stream chains on from the tombstones.
        #expect(try from.run("favorite", "--user", "bob", "--listing", "L9", "--name", "Show", "--venue", "Hall",
                             "--date", "2027-01-05T20:00:00Z", "--category", "music").status == 0)
        let checkpoint = directory.path + "/source.cp"
        var result = try from.run("seal", "--key", privateKey, "--checkpoint-out", checkpoint)
        #expect(result.status == 0, "\(result)")
        let proof = try from.run("prove", "--event", bobsFirst, "--checkpoint", checkpoint)
        #expect(proof.status == 0, "\(proof)")
        let proofFile = try from.file("proof.txt", proof.output)

        result = try CLI.bare("migrate", "--from", source, "--to", target, "--quiet")
        #expect(result.status == 0, "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.contains("(2 erased, accepted by their kept digests)"), "the copy keeps the erasures: \(result)")
        result = try to.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey)
        #expect(result.status == 0, "a checkpoint signed on the source verifies on the copy: \(result)")
        let copyCheckpoint = directory.path + "/target.cp"
        result = try to.run("seal", "--key", privateKey, "--checkpoint-out", copyCheckpoint)
        #expect(result.status == 0, "\(result)")
        let sourceRoot = try String(contentsOfFile: checkpoint, encoding: .utf8).split(separator: "\n").prefix(3)
        let copyRoot = try String(contentsOfFile: copyCheckpoint, encoding: .utf8).split(separator: "\n").prefix(3)
        #expect(sourceRoot == copyRoot, "the same tree: \(sourceRoot) and \(copyRoot)")
        result = try CLI.bare("check-proof", proofFile, "--checkpoint", copyCheckpoint, "--public-key", publicKey)
        #expect(result.status == 0, "a proof made on the source checks against the copy's checkpoint: \(result)")
        let again = try to.run("prove", "--event", bobsFirst, "--checkpoint", checkpoint)
        #expect(again.status == 0 && again.output == proof.output, "the copy proves the erased event as the source does: \(again)")

        // The backup of before the erasure: already there (the payloads hash to the kept digests), nothing comes back.
        result = try to.run("import", backupFile)
        #expect(result.status == 0 && result.output.contains("imported 0 events, skipped 4 already present"), "\(result)")
        let favorites = try to.run("favorites", "--user", "bob", "--json")
        #expect(favorites.status == 0 && favorites.output.contains("L9") && !favorites.output.contains("L2") && !favorites.output.contains("L3"), "\(favorites)")
        let history = try to.run("history", "--user", "bob", "--json")
        #expect(!history.output.contains("Show L2"), "the erased payloads are not in the copy: \(history)")
    }
}
