import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// Signed checkpoints and Merkle proofs through the real binary: `keys create`, `seal --key`,
/// `verify --checkpoint`, `prove`, `check-proof`, on SQLite files and PostgreSQL, against each
/// kind of rewrite made after the checkpoint.
@Suite("Audit: checkpoints and proofs")
struct CheckpointTests {
    struct Setup {
        let directory: TemporaryDirectory
        let cli: CLI
        var privateKey: String { directory.path + "/keys/checkpoint-key.pem" }
        var publicKey: String { directory.path + "/keys/checkpoint-key.pub.pem" }
        var path: String { directory.path + "/events.sqlite" }
    }

    static func setup(store: String? = nil) throws -> Setup {
        let directory = try TemporaryDirectory()
        let cli = CLI(store: store ?? "sqlite:\(directory.path)/events.sqlite", directory: directory.path)
        let keys = try CLI.bare("keys", "create", "--out", directory.path + "/keys")
        #expect(keys.status == 0, "\(keys)")
        #expect(try cli.run("demo", "--users", "4", "--actions", "40", "--seed", "5").status == 0)
        return Setup(directory: directory, cli: cli)
    }

    /// `seal --key … --checkpoint-out NAME`; returns the checkpoint's path.
    static func seal(_ setup: Setup, _ name: String) throws -> String {
        let out = setup.directory.path + "/" + name
        let result = try setup.cli.run("seal", "--key", setup.privateKey, "--checkpoint-out", out)
        #expect(result.status == 0, "\(result)")
        let printed = try String(contentsOfFile: out, encoding: .utf8)
        #expect(result.output.hasSuffix(printed), "the printed checkpoint is the one written")
        return out
    }

    static func eventIDs(_ cli: CLI) throws -> [String] {
        try cli.run("log", "--json").output.split(separator: "\n").compactMap { line in
            (try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["id"] as? String
        }
    }

    static func sqlite(_ path: String, _ sql: String) throws {
        let result = try Processes.run(Processes.sqlite3, [path, AuditTests.dropTriggers + sql])
        #expect(result.status == 0, "\(result.errors)")
    }

    @Test("keys create: a 0600 private key and a public key, never overwritten; bad key files get one Error line")
    func keys() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let out = directory.path + "/k"
        let first = try CLI.bare("keys", "create", "--out", out)
        #expect(first.status == 0 && first.output.hasPrefix("key "), "\(first)")
        let attributes = try FileManager.default.attributesOfItem(atPath: out + "/checkpoint-key.pem")
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let privatePEM = try String(contentsOfFile: out + "/checkpoint-key.pem", encoding: .utf8)
        #expect(privatePEM.hasPrefix("-----BEGIN PRIVATE KEY-----\n"))
        let again = try CLI.bare("keys", "create", "--out", out)
        #expect(again.status == 65 && again.errors.hasPrefix("Error: ") && again.output.isEmpty, "\(again)")
        #expect(try String(contentsOfFile: out + "/checkpoint-key.pem", encoding: .utf8) == privatePEM)
        // openssl reads what evtool writes, as an ED25519 key.
        let openssl = try ChildProcess.run(["openssl", "pkey", "-in", out + "/checkpoint-key.pem", "-noout", "-text"])
        #expect(openssl.status == 0 && openssl.output.contains("ED25519"), "\(openssl)")

        let cli = CLI(store: "sqlite:\(directory.path)/e.sqlite", directory: directory.path)
        #expect(try cli.run("demo", "--users", "2", "--actions", "5", "--seed", "1").status == 0)
        let garbage = try cli.file("garbage.pem", "not a key\n")
        let bad = try cli.run("seal", "--key", garbage)
        #expect(bad.status == 65 && bad.errors.hasPrefix("Error: the private key file") && bad.output.isEmpty, "\(bad)")
        let publicOnly = try cli.run("seal", "--key", out + "/checkpoint-key.pub.pem")
        #expect(publicOnly.status == 65 && publicOnly.errors == "Error: '--key' needs the private key, not the public one\n", "\(publicOnly)")
        // Neither made a seal.
        #expect(try cli.run("verify").output.contains(", 0 seals verified"))
    }

    @Test("no false alarm: verify --checkpoint after appends, forget, rebuild, export and import; unsigned seals still work")
    func legitimateChanges() throws {
        let setup = try Self.setup(); defer { setup.directory.remove() }
        let checkpoint = try Self.seal(setup, "cp.txt")
        var result = try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("; extends checkpoint '\(checkpoint)' ("), "\(result)")
        #expect(result.output.contains("signed by key "))
        #expect(try setup.cli.run("demo", "--users", "3", "--actions", "25", "--seed", "9").status == 0)
        // The tree is the log's: an exported and imported copy extends the same checkpoint.
        let exported = try setup.cli.run("export")
        #expect(exported.status == 0, "\(exported)")
        let export = try setup.cli.file("log.jsonl", exported.output)
        let copy = CLI(store: "sqlite:\(setup.directory.path)/copy.sqlite", directory: setup.directory.path)
        result = try copy.run("import", export)
        #expect(result.status == 0, "\(result)")
        result = try copy.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        #expect(try setup.cli.run("forget", "--by", "tester", "--user", "user-00001", "--reason", "test").status == 0)
        #expect(try setup.cli.run("rebuild").status == 0)
        result = try setup.cli.run("seal")
        #expect(result.status == 0 && result.output.hasPrefix("sealed: seal 2 at position "), "\(result)")
        result = try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        #expect(result.output.contains("consistency proof "), "\(result)")
    }

    @Test("verify --checkpoint names truncation with the seals removed, a fork, a reorder across streams, and a forged checkpoint")
    func tamperingIsNamed() throws {
        let setup = try Self.setup(); defer { setup.directory.remove() }
        let fork = setup.directory.path + "/fork.sqlite"
        try FileManager.default.copyItem(atPath: setup.path, toPath: fork)
        #expect(try setup.cli.run("demo", "--users", "2", "--actions", "10", "--seed", "7").status == 0)
        let checkpoint = try Self.seal(setup, "cp.txt")
        let size = try Checkpoint(text: String(contentsOfFile: checkpoint, encoding: .utf8)).size

        // A fork: the copy from before, with different events appended, past the checkpoint's size.
        let forked = CLI(store: "sqlite:" + fork, directory: setup.directory.path)
        #expect(try forked.run("demo", "--users", "2", "--actions", "30", "--seed", "8").status == 0)
        var result = try forked.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("its first \(size) events are not the ones the checkpoint covers") && result.errors.contains("fork"), "\(result)")

        // Truncated, seals removed with it: the chains and seals verify, the checkpoint does not.
        let truncated = setup.directory.path + "/truncated.sqlite"
        try FileManager.default.copyItem(atPath: setup.path, toPath: truncated)
        try Self.sqlite(truncated, "DROP TRIGGER seals_append_only_delete; DELETE FROM events WHERE position = (SELECT max(position) FROM events); DELETE FROM seals;")
        let short = CLI(store: "sqlite:" + truncated, directory: setup.directory.path)
        // The per-stream chains cannot see the last event removed; the kept Merkle tree does.
        result = try short.run("verify")
        #expect(result.status == 65 && result.errors.contains("has no event: the log has fewer events than the kept tree (it was truncated"), "\(result)")
        result = try short.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("it has \(size - 1) events, fewer than the checkpoint covers: it was truncated"), "\(result)")

        // Two events of different streams swapped below the checkpoint: every stream's chain and
        // every seal still verify (each stream's order is kept), the tree's leaf order is not.
        let reordered = setup.directory.path + "/reordered.sqlite"
        try FileManager.default.copyItem(atPath: setup.path, toPath: reordered)
        let pair = try Processes.run(Processes.sqlite3, [reordered, "SELECT a.position FROM events a JOIN events b ON b.position = a.position + 1 WHERE a.stream_id <> b.stream_id ORDER BY a.position LIMIT 1"])
        let first = try #require(Int(pair.output.trimmingCharacters(in: .whitespacesAndNewlines)), "\(pair)")
        try Self.sqlite(reordered, "UPDATE events SET position = 1000000 WHERE position = \(first); UPDATE events SET position = \(first) WHERE position = \(first + 1); UPDATE events SET position = \(first + 1) WHERE position = 1000000;")
        let swapped = CLI(store: "sqlite:" + reordered, directory: setup.directory.path)
        // The chains and seals cannot see it; the kept Merkle tree does.
        result = try swapped.run("verify")
        #expect(result.status == 65 && result.errors.contains("is the leaf of the event now at position \(first + 1): events were reordered"), "\(result)")
        result = try swapped.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey)
        #expect(result.status == 65 && result.errors.contains("reordered"), "\(result)")

        // A forged checkpoint (another size and root, old signature) and one of another key.
        var text = try String(contentsOfFile: checkpoint, encoding: .utf8)
        let forgedPath = try setup.cli.file("forged.txt", text.replacingOccurrences(of: "\n\(size)\n", with: "\n\(size - 1)\n"))
        result = try short.run("verify", "--checkpoint", forgedPath, "--public-key", setup.publicKey)
        #expect(result.status == 65 && result.errors.contains("(forged)"), "\(result)")
        let other = try CLI.bare("keys", "create", "--out", setup.directory.path + "/other")
        #expect(other.status == 0)
        result = try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", setup.directory.path + "/other/checkpoint-key.pub.pem")
        #expect(result.status == 65 && result.errors.contains("is not signed by this key"), "\(result)")
        text = text.replacingOccurrences(of: "\n\n", with: "\nextra\n\n")
        result = try setup.cli.run("verify", "--checkpoint", try setup.cli.file("bad.txt", text))
        #expect(result.status == 65 && result.errors.hasPrefix("Error: '") && result.errors.contains("not a checkpoint"), "\(result)")
        // The untouched store still verifies against it.
        #expect(try setup.cli.run("verify", "--checkpoint", checkpoint, "--public-key", setup.publicKey).status == 0)
    }

    @Test("prove --event and check-proof offline; prove --from/--to and check-proof with two checkpoints; changed proofs fail")
    func proofs() throws {
        let setup = try Self.setup(); defer { setup.directory.remove() }
        let older = try Self.seal(setup, "cp1.txt")
        let ids = try Self.eventIDs(setup.cli)
        #expect(ids.count > 10)
        for id in [ids[0], ids[ids.count / 2], ids[ids.count - 1]] {
            let proof = try setup.cli.run("prove", "--event", id, "--checkpoint", older)
            #expect(proof.status == 0 && proof.output.hasPrefix("evtool inclusion proof\n"), "\(proof)")
            let file = try setup.cli.file("proof.txt", proof.output)
            let checked = try CLI.bare("check-proof", file, "--checkpoint", older, "--public-key", setup.publicKey)
            // Without the event, only its chain hash is proven: the OK line names the entry, not the id.
            #expect(checked.status == 0 && checked.output.hasPrefix("OK: entry ") && checked.output.contains("the proof names it event \(id): give --event-file"), "\(checked)")
            // With the event itself (its export line): its content is what the leaf commits to.
            let line = try #require(try setup.cli.run("export").output.split(separator: "\n").first { $0.contains(#""id":"\#(id)""#) })
            let eventFile = try setup.cli.file("event.jsonl", line + "\n")
            let withEvent = try CLI.bare("check-proof", file, "--checkpoint", older, "--public-key", setup.publicKey, "--event-file", eventFile)
            #expect(withEvent.status == 0 && withEvent.output.hasSuffix(", with the content of \(eventFile)\n"), "\(withEvent)")
            let changedData = line.replacingOccurrences(of: #""data":{"#, with: #""data":{"extra":1,"#)
            #expect(changedData != line)
            let changedEvent = try setup.cli.file("changed-event.jsonl", changedData + "\n")
            let refusedEvent = try CLI.bare("check-proof", file, "--checkpoint", older, "--public-key", setup.publicKey, "--event-file", changedEvent)
            #expect(refusedEvent.status == 65 && refusedEvent.errors.contains("is not the proven event"), "\(refusedEvent)")
            // A changed hash line, or the proof against another checkpoint's size, fails.
            var lines = proof.output.split(separator: "\n").map(String.init)
            if lines.count > 6 {
                lines[6] = Data(repeating: 9, count: 32).base64EncodedString()
                let changed = try setup.cli.file("changed.txt", lines.joined(separator: "\n") + "\n")
                let refused = try CLI.bare("check-proof", changed, "--checkpoint", older, "--public-key", setup.publicKey)
                #expect(refused.status == 65 && refused.errors.hasPrefix("Error: the proof does not hold: "), "\(refused)")
            }
        }
        #expect(try setup.cli.run("demo", "--users", "2", "--actions", "15", "--seed", "11").status == 0)
        let newer = try Self.seal(setup, "cp2.txt")
        let consistency = try setup.cli.run("prove", "--from", older, "--to", newer)
        #expect(consistency.status == 0 && consistency.output.hasPrefix("evtool consistency proof\n"), "\(consistency)")
        let file = try setup.cli.file("consistency.txt", consistency.output)
        var checked = try CLI.bare("check-proof", file, "--checkpoint", older, "--checkpoint", newer, "--public-key", setup.publicKey)
        #expect(checked.status == 0 && checked.output.hasPrefix("OK: checkpoint \(newer) "), "\(checked)")
        checked = try CLI.bare("check-proof", file, "--checkpoint", newer, "--checkpoint", older, "--public-key", setup.publicKey)
        #expect(checked.status == 65, "\(checked)")
        // An event after the checkpoint has no proof in it; an unknown id is named.
        let late = try Self.eventIDs(setup.cli).last ?? ""
        let after = try setup.cli.run("prove", "--event", late, "--checkpoint", older)
        #expect(after.status == 65 && after.errors.contains("after the checkpoint's"), "\(after)")
        let unknown = try setup.cli.run("prove", "--event", UUID().uuidString)
        #expect(unknown.status == 65 && unknown.errors.contains("has no event"), "\(unknown)")
        // An event rewritten since the older checkpoint cannot be proven against it; the kept
        // tree still proves the others, as they were when the checkpoint was signed.
        try Self.sqlite(setup.path, "UPDATE events SET hash = '\(String(repeating: "ab", count: 32))' WHERE position = 1;")
        let rewritten = try setup.cli.run("prove", "--event", ids[0], "--checkpoint", older)
        #expect(rewritten.status == 65 && rewritten.errors.contains("gives an inclusion proof for leaf 0 that does not hold") && rewritten.output.isEmpty, "\(rewritten)")
        let untouched = try setup.cli.run("prove", "--event", ids[1], "--checkpoint", older)
        #expect(untouched.status == 0, "\(untouched)")
        let untouchedFile = try setup.cli.file("untouched.txt", untouched.output)
        checked = try CLI.bare("check-proof", untouchedFile, "--checkpoint", older, "--public-key", setup.publicKey)
        #expect(checked.status == 0, "\(checked)")
    }

    @Test("key rotation: a consistency proof from an old key's checkpoint to a new key's checks with both public keys given; with one, or another, it is refused naming the keys")
    func keyRotation() throws {
        let setup = try Self.setup(); defer { setup.directory.remove() }
        let old = try Self.seal(setup, "cp-old.txt")
        let keys = try CLI.bare("keys", "create", "--out", setup.directory.path + "/new-keys")
        #expect(keys.status == 0, "\(keys)")
        let (newPrivate, newPublic) = (setup.directory.path + "/new-keys/checkpoint-key.pem", setup.directory.path + "/new-keys/checkpoint-key.pub.pem")
        #expect(try setup.cli.run("demo", "--users", "2", "--actions", "10", "--seed", "9").status == 0)
        let new = setup.directory.path + "/cp-new.txt"
        var result = try setup.cli.run("seal", "--key", newPrivate, "--checkpoint-out", new)
        #expect(result.status == 0, "\(result)")
        let consistency = try setup.cli.run("prove", "--from", old, "--to", new)
        #expect(consistency.status == 0, "\(consistency)")
        let proof = try setup.cli.file("rotation.txt", consistency.output)
        result = try CLI.bare("check-proof", proof, "--checkpoint", old, "--checkpoint", new, "--public-key", setup.publicKey, "--public-key", newPublic)
        let signers = result.output.components(separatedBy: "signed by key ").dropFirst().map { $0.prefix(8) }
        #expect(result.status == 0 && result.output.hasPrefix("OK: checkpoint \(new)") && signers.count == 2 && signers[0] != signers[1],
                "each checkpoint checked with its own key: \(result)")
        result = try CLI.bare("check-proof", proof, "--checkpoint", old, "--checkpoint", new, "--public-key", setup.publicKey)
        #expect(result.status == 65 && result.errors.contains("checkpoint '\(new)': the checkpoint is not signed by this key"), "one key alone: \(result)")
        let other = try CLI.bare("keys", "create", "--out", setup.directory.path + "/other-keys")
        #expect(other.status == 0)
        result = try CLI.bare("check-proof", proof, "--checkpoint", old, "--checkpoint", new, "--public-key", setup.publicKey,
                              "--public-key", setup.directory.path + "/other-keys/checkpoint-key.pub.pem")
        #expect(result.status == 65 && result.errors.contains("checkpoint '\(new)' is not signed by any of the 2 public keys given")
                && result.errors.contains("it has signatures by key "), "another key: \(result)")
    }

    @Test("PostgreSQL: a proof made on SQLite checks against a checkpoint made after migrate; tampering there is named")
    func acrossMigrate() throws {
        let setup = try Self.setup(); defer { setup.directory.remove() }
        let id = try #require(try Self.eventIDs(setup.cli).dropFirst(3).first)
        let sqliteCheckpoint = try Self.seal(setup, "cp-sqlite.txt")
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let postgresURL = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        let migrated = try CLI.bare("migrate", "--from", setup.cli.store, "--to", postgresURL)
        #expect(migrated.status == 0, "\(migrated)")
        let target = CLI(store: postgresURL, directory: setup.directory.path)
        var result = try target.run("verify", "--checkpoint", sqliteCheckpoint, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        #expect(try target.run("demo", "--users", "2", "--actions", "10", "--seed", "4").status == 0)
        let out = setup.directory.path + "/cp-postgres.txt"
        result = try target.run("seal", "--key", setup.privateKey, "--checkpoint-out", out)
        #expect(result.status == 0, "\(result)")
        // The proof comes from SQLite, the checkpoint of the same size from PostgreSQL.
        let size = try Checkpoint(text: String(contentsOfFile: sqliteCheckpoint, encoding: .utf8)).size
        let proof = try setup.cli.run("prove", "--event", id, "--checkpoint", sqliteCheckpoint)
        let proofFile = try setup.cli.file("proof.txt", proof.output)
        let postgresCheckpoint = try Checkpoint(text: String(contentsOfFile: out, encoding: .utf8))
        #expect(postgresCheckpoint.size > size)
        let consistency = try target.run("prove", "--from", sqliteCheckpoint, "--to", out)
        #expect(consistency.status == 0, "\(consistency)")
        let consistencyFile = try setup.cli.file("consistency.txt", consistency.output)
        result = try CLI.bare("check-proof", consistencyFile, "--checkpoint", sqliteCheckpoint, "--checkpoint", out, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        result = try CLI.bare("check-proof", proofFile, "--checkpoint", sqliteCheckpoint, "--public-key", setup.publicKey)
        #expect(result.status == 0, "\(result)")
        // A proof made on PostgreSQL for the same event and size is the SQLite one.
        let again = try target.run("prove", "--event", id, "--checkpoint", sqliteCheckpoint)
        #expect(again.status == 0 && again.output == proof.output, "\(again)")

        // Truncated on PostgreSQL with the seals replaced: named.
        let psql = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
            "ALTER TABLE \(schema).events DISABLE TRIGGER events_append_only; ALTER TABLE \(schema).seals DISABLE TRIGGER seals_append_only; DELETE FROM \(schema).events WHERE position = (SELECT max(position) FROM \(schema).events); DELETE FROM \(schema).seals;"])
        #expect(psql.status == 0, "\(psql)")
        result = try target.run("verify", "--checkpoint", out, "--public-key", setup.publicKey)
        #expect(result.status == 65 && result.errors.contains("fewer than the checkpoint covers"), "\(result)")
    }
}
