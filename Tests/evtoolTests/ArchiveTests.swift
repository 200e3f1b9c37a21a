import Foundation
import TestSupport
import Testing

/// `evtool archive` end to end on real stores: the file, the boundary, verify from it and with
/// the archive, views, history and commands across it, refusals, and a kill at any moment.
@Suite("Archive: events moved to a verified file, the rest of the log carried on")
struct ArchiveTests {
    static func favorite(_ cli: CLI, _ user: String, _ listing: String) throws -> Processes.Result {
        try cli.run("favorite", "--user", user, "--listing", listing, "--name", "Show \(listing)", "--venue", "Hall",
                    "--date", "2026-12-05 19:30:00", "--category", "Sports")
    }

    /// Positions 1 ada fav L1, 2 bob search, 3 ada fav L2, 4 bob search, 5 cyd fav L3, 6 ada search; projected, sealed.
    static func makeLog(_ cli: CLI) throws {
        #expect(try favorite(cli, "ada", "L1").status == 0)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "jazz", "--location", "Los Angeles").status == 0)
        #expect(try favorite(cli, "ada", "L2").status == 0)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "opera", "--location", "Los Angeles").status == 0)
        #expect(try favorite(cli, "cyd", "L3").status == 0)
        #expect(try cli.run("search", "--user", "ada", "--keyword", "rock", "--location", "Los Angeles").status == 0)
        #expect(try cli.run("project").status == 0)
        #expect(try cli.run("seal").status == 0)
    }

    /// A fresh store of each kind, and how to change it behind evtool's back (SQL as its owner).
    static func store(_ kind: String, _ directory: TemporaryDirectory) throws -> (cli: CLI, sql: (String) throws -> Processes.Result, cleanup: () -> Void) {
        if kind == "sqlite" {
            let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
            return (cli, { try Processes.run(Processes.sqlite3, [cli.store, $0]) }, {})
        }
        // Archive needs the partitioned layout (schema 18).
        let url = try TestStores.partitionedPostgresURL()
        let schema = TestStores.freshSchema()
        let cli = CLI(store: url + (url.contains("?") ? "&" : "?") + "schema=\(schema)", directory: directory.path)
        return (cli, { try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", "SET search_path = \(schema); " + $0]) },
                { TestStores.dropPostgres(url: url, schema: schema) })
    }

    @Test("verify after archive says what it checked: without --archive the kept events from the boundary and the archived ones not checked, in the OK line and in --json; with --archive every event",
          arguments: ["sqlite", "postgres"])
    func verifySaysWhatItChecked(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, _, cleanup) = try Self.store(kind, directory); defer { cleanup() }
        try Self.makeLog(cli)
        let file = directory.path + "/archive-1.jsonl"
        #expect(try cli.run("archive", "--before", "5", "--to", file).status == 0)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "soul", "--location", "Los Angeles").status == 0)
        let without = try cli.run("verify")
        #expect(without.status == 0, "\(without)")
        #expect(without.output == "OK: 3 events from position 5 in 3 streams, 1 seal verified; 4 archived events (positions 1–4) not checked: give --archive FILE (every archive's, oldest first) to check them\n", "\(without)")
        #expect(try cli.run("verify", "--archive", file).output == "OK: 7 events in 3 streams, 1 seal verified\n")
        func json(_ arguments: String...) throws -> [String: Any] {
            let result = try Processes.run(Processes.evtool, ["verify", "--json"] + arguments + ["--store", cli.store])
            #expect(result.status == 0, "\(result)")
            return try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        }
        let checkedFromBoundary = try json()
        #expect(checkedFromBoundary["events"] as? Int == 3 && checkedFromBoundary["firstPosition"] as? Int == 5
                    && checkedFromBoundary["archivedNotChecked"] as? Int == 4 && checkedFromBoundary["head"] as? Int == 7, "\(checkedFromBoundary)")
        let checkedAll = try json("--archive", file)
        #expect(checkedAll["events"] as? Int == 7 && checkedAll["firstPosition"] as? Int == 1 && checkedAll["archivedNotChecked"] as? Int == 0
                    && checkedAll["head"] as? Int == 7, "\(checkedAll)")
        // One stream: ada's versions 1 and 2 (positions 1 and 3) are archived, version 3 (position 6) kept.
        let stream = try cli.run("verify", "--stream", "ada")
        #expect(stream.output == "OK: 1 event in stream 'ada'; seals not checked (--stream); 2 archived events of the stream (versions 1–2, below position 5) not checked: 'evtool verify --archive FILE…' checks the whole log\n", "\(stream)")
        let streamJSON = try json("--stream", "ada")
        #expect(streamJSON["events"] as? Int == 1 && streamJSON["archivedNotChecked"] as? Int == 2, "\(streamJSON)")
        #expect(try cli.run("verify", "--stream", "cyd").output == "OK: 1 event in stream 'cyd'; seals not checked (--stream)\n", "cyd's one event is kept")
    }

    @Test("archive: the file holds the events below the boundary; verify checks the rest from it, and --archive both; views, history and commands carry on",
          arguments: ["sqlite", "postgres"])
    func archiveAndCarryOn(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, sql, cleanup) = try Self.store(kind, directory); defer { cleanup() }
        try Self.makeLog(cli)
        // A signed checkpoint of the six events, made before the archive.
        #expect(try CLI.bare("keys", "create", "--out", directory.path + "/keys").status == 0)
        let checkpoint = directory.path + "/cp.txt"
        #expect(try cli.run("seal", "--key", directory.path + "/keys/checkpoint-key.pem", "--checkpoint-out", checkpoint).status == 0)
        let publicKey = directory.path + "/keys/checkpoint-key.pub.pem"
        let views = try ["ada", "bob", "cyd"].map { user in
            [try cli.run("favorites", "--user", user, "--json").output, try cli.run("recent", "--user", user, "--json").output]
        }
        let file = directory.path + "/archive-1.jsonl"
        let archived = try cli.run("archive", "--before", "6", "--to", file)
        #expect(archived.status == 0, "\(archived)")
        #expect(archived.output.hasPrefix("archived 5 events below position 6 to \(file) (archive 1, SHA-256 "), "\(archived)")
        // The file is the export of those events, line for line.
        let export = try Processes.run(Processes.evtool, ["export", "--store", cli.store])
        #expect(export.output.split(separator: "\n").count == 1, "only position 6 stays: \(export)")
        let lines = try String(contentsOfFile: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 5 && lines.allSatisfy { $0.contains(#""hash":"#) })
        #expect(!FileManager.default.fileExists(atPath: file + ".partial"))

        // Without the file: the kept event checked from the boundary, the archived ones counted apart.
        #expect(try cli.run("verify").output == "OK: 1 event from position 6 in 3 streams, 2 seals verified; 5 archived events (positions 1–5) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try cli.run("verify", "--archive", file).output == "OK: 6 events in 3 streams, 2 seals verified\n")
        // Views are the same, history shows what is kept.
        let after = try ["ada", "bob", "cyd"].map { user in
            [try cli.run("favorites", "--user", user, "--json").output, try cli.run("recent", "--user", user, "--json").output]
        }
        #expect(after == views)
        let history = try cli.run("history", "--user", "ada")
        #expect(history.output.split(separator: "\n").count == 2 && history.output.contains("\n6 "), "\(history)")
        // --as-of needs the user's archived events: refused, not answered from what is kept.
        let asOf = try cli.run("favorites", "--user", "ada", "--as-of", "6")
        #expect(asOf.status == 65 && asOf.errors.contains("events of user 'ada' are archived (below position 6)"), "\(asOf)")
        // cyd's events are all archived: the decision state kept at the boundary knows L3.
        let unfavorite = try cli.run("unfavorite", "--user", "cyd", "--listing", "L3")
        #expect(unfavorite.output == "recorded Unfavorited for cyd: version 2, position 7\n", "\(unfavorite)")
        #expect(try cli.run("favorites", "--user", "cyd").output == "No favorites\n")
        // ada's favorites L1 and L2 are archived: favoriting L1 again changes nothing.
        let again = try Self.favorite(cli, "ada", "L1")
        #expect(again.status == 0 && !again.output.hasPrefix("recorded"), "\(again)")
        #expect(try cli.run("seal").status == 0)
        #expect(try cli.run("verify").output == "OK: 2 events from position 6 in 3 streams, 3 seals verified; 5 archived events (positions 1–5) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try cli.run("verify", "--archive", file).output == "OK: 7 events in 3 streams, 3 seals verified\n")

        // A second archive, then both files together (in order).
        let second = directory.path + "/archive-2.jsonl"
        #expect(try cli.run("archive", "--before", "7", "--to", second).status == 0)
        #expect(try cli.run("verify", "--archive", file, "--archive", second).output == "OK: 7 events in 3 streams, 3 seals verified\n")
        // The checkpoint made before both archives: its consistency proof streams the files, then the store.
        let without = try cli.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey)
        #expect(without.status == 65 && without.errors.contains("the log's first 6 events are archived: give every archive's file"), "\(without)")
        let with = try cli.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey, "--archive", file, "--archive", second)
        #expect(with.status == 0 && with.output.contains("(consistency proof 6 → 7 checked)"), "\(with)")
        let short = try cli.run("verify", "--archive", file)
        #expect(short.status == 65 && short.errors.contains("records 2 archives"), "\(short)")
        let swapped = try cli.run("verify", "--archive", second, "--archive", file)
        #expect(swapped.status == 65, "\(swapped)")

        // A changed archive file is caught.
        var text = try String(contentsOfFile: file, encoding: .utf8)
        text = text.replacingOccurrences(of: "jazz", with: "jazZ")
        let forged = try cli.file("forged.jsonl", text)
        let caught = try cli.run("verify", "--archive", forged, "--archive", second)
        #expect(caught.status == 65 && caught.errors.hasPrefix("Error: the log fails verification: modified at position 2, stream "), "\(caught)")
        // So is a carried head changed in the store.
        let tamper = try sql("UPDATE archived_heads SET version = 9 WHERE stream_id LIKE '%bob%';")
        #expect(tamper.status == 0, "\(tamper)")
        let heads = try cli.run("verify")
        #expect(heads.status == 65 && heads.errors.contains("carried over at archive 2"), "\(heads)")
    }

    @Test("an --archive that is a FIFO or a folder, and a proof file that is a FIFO, a folder or larger than any proof, are refused at once naming what they are (exit 65)")
    func archiveAndProofFilesThatAreNotFiles() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let made = try Self.store("sqlite", directory); defer { made.cleanup() }
        try Self.makeLog(made.cli)
        try #require(try made.cli.run("archive", "--before", "4", "--to", directory.path + "/a1.jsonl").status == 0)
        let fifo = directory.path + "/fifo", folder = directory.path + "/folder", big = directory.path + "/big.txt"
        try #require(mkfifo(fifo, 0o600) == 0)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        try Data(count: 2 << 20).write(to: URL(fileURLWithPath: big))
        for (path, words) in [(fifo, "is a pipe (FIFO), not a file"), (folder, "is a folder, not a file")] {
            for command in [["verify", "--archive", path], ["rebuild", "--archive", path]] {
                let result = try made.cli.run(command[0], command[1], command[2])
                #expect(result.status == 65 && result.errors.contains("the archive file '\(path)' \(words)"), "\(command): \(result)")
            }
        }
        for (path, words) in [(fifo, "is a pipe (FIFO)"), (folder, "is a folder"), (big, "larger than any proof")] {
            let result = try CLI.bare("check-proof", path, "--checkpoint", path)
            #expect(result.status == 65 && result.errors.contains("the proof file '\(path)' ") && result.errors.contains(words), "\(result)")
        }
    }

    @Test("after an archive that splits a tile of the kept tree, every kept event is proved at its own leaf", arguments: ["sqlite", "postgres"])
    func proofsAfterAnArchiveInsideATile(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let made = try Self.store(kind, directory); defer { made.cleanup() }
        let cli = made.cli
        try #require(try cli.run("demo", "--users", "3", "--actions", "40", "--seed", "7", "--quiet").status == 0)
        try #require(try cli.run("seal").status == 0)
        let log = try cli.run("log", "--json")
        let events = try log.output.split(separator: "\n").map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        try #require(events.count > 30, "\(log)")
        let boundary = events[events.count - 4]["position"] as! Int
        let archived = try cli.run("archive", "--before", String(boundary), "--to", directory.path + "/a1.jsonl")
        try #require(archived.status == 0, "\(archived)")
        // Leaf i is the i-th event of the log (from 0), archived ones included.
        for (leaf, event) in events.enumerated().suffix(4) {
            let proof = try cli.run("prove", "--event", event["id"] as! String, "--json")
            #expect(proof.status == 0, "leaf \(leaf): \(proof)")
            let document = try #require(try JSONSerialization.jsonObject(with: Data(proof.output.utf8)) as? [String: Any], "\(proof)")
            #expect(document["index"] as? Int == leaf, "\(proof.output)")
        }
    }

    @Test("archive refuses, exit 65 and nothing archived: a file that exists, a position beyond the head or not after the boundary, views behind; rebuild and forget of an archived store are refused")
    func refusals() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, sql, cleanup) = try Self.store("sqlite", directory); defer { cleanup() }
        try Self.makeLog(cli)
        let existing = try cli.file("exists.jsonl", "keep me\n")
        var result = try cli.run("archive", "--before", "4", "--to", existing)
        #expect(result.status == 65 && result.errors == "Error: '\(existing)' exists: an archive never replaces a file; name a new one\n", "\(result)")
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "keep me\n")
        let file = directory.path + "/a.jsonl"
        result = try cli.run("archive", "--before", "7", "--to", file)
        #expect(result.status == 65 && result.errors == "Error: --before 7 is beyond the head of the log (position 6): the event at the head stays in the log\n", "\(result)")
        result = try cli.run("archive", "--before", "1", "--to", file)
        #expect(result.status == 65 && result.errors.contains("no event is below it"), "\(result)")
        // An event the views have not folded yet.
        let line = try cli.file("dan.jsonl", #"{"stream":"user-dan","type":"Noted","data":{"keyword":"folk"}}"# + "\n" + #"{"stream":"user-dan","type":"Noted","data":{"keyword":"pop"}}"# + "\n")
        #expect(try cli.run("import", line).status == 0)   // import appends without projecting
        result = try cli.run("archive", "--before", "8", "--to", file)
        #expect(result.status == 65 && result.errors.contains("is checkpointed at position 6, before position 7; run 'evtool project' first"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(try cli.run("verify").output == "OK: 8 events in 4 streams, 1 seal verified\n")

        #expect(try cli.run("archive", "--before", "4", "--to", file).status == 0)
        result = try cli.run("archive", "--before", "3", "--to", directory.path + "/b.jsonl")
        #expect(result.status == 65 && result.errors.contains("are archived already (archive 1)"), "\(result)")
        result = try cli.run("rebuild")
        #expect(result.status == 69 && result.errors.hasPrefix("Error: the events below position 4 are archived"), "\(result)")
        result = try cli.run("forget", "--user", "bob", "--reason", "ticket 1", "--by", "auditor")
        #expect(result.status == 69 && result.errors.hasPrefix("Error: the events below position 4 are archived"), "\(result)")
        #expect(try cli.run("verify").output == "OK: 5 events from position 4 in 4 streams, 1 seal verified; 3 archived events (positions 1–3) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        // The rows above the boundary stay append-only.
        let delete = try sql("DELETE FROM events WHERE position = 5;")
        #expect(delete.status != 0 && delete.errors.contains("append-only"), "\(delete)")
    }

    @Test("kill -9 during archive leaves the old state or the new one, and either verifies", arguments: [0.05, 0.15, 0.3, 0.6, 1.2])
    func killed(after delay: Double) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        #expect(try cli.run("demo", "--users", "40", "--actions", "3000", "--quiet").status == 0)
        #expect(try cli.run("project").status == 0)
        let head = try #require(Int(try cli.run("stats", "--json").output.split(separator: ",").first { $0.contains("\"head\"") }?
            .split(separator: ":").last?.trimmingCharacters(in: .whitespacesAndNewlines.union(["}"])) ?? ""))
        let file = directory.path + "/a.jsonl"
        let running = try Processes.start(Processes.evtool, ["archive", "--before", "\(head - 10)", "--to", file, "--store", cli.store])
        Thread.sleep(forTimeInterval: delay)
        running.send(SIGKILL)
        let outcome = try running.finish()
        let recorded = try Processes.run(Processes.sqlite3, [cli.store, "SELECT count(*) FROM archives;"]).output
        let verify = try cli.run("verify")
        #expect(verify.status == 0, "after a kill at \(delay) s: \(verify) (\(outcome))")
        if recorded == "1\n" {
            #expect(try cli.run("verify", "--archive", file).status == 0)
            #expect(try cli.run("export").output.split(separator: "\n").count == 10 + 1)
        } else {
            #expect(recorded == "0\n", "\(recorded)")
            #expect(try cli.run("export").output.split(separator: "\n").count == head)
            // A rerun to a new name archives (a file left by the killed run is never reused).
            let rerun = try cli.run("archive", "--before", "\(head - 10)", "--to", directory.path + "/b.jsonl")
            #expect(rerun.status == 0, "\(rerun)")
            #expect(try cli.run("verify", "--archive", directory.path + "/b.jsonl").status == 0)
        }
    }

    @Test("Ctrl-C while the archive file is written: one Error line, exit 130, no file left and nothing archived; the same command again archives")
    func interruptedLeavesNoFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        try #require(try cli.run("demo", "--users", "50", "--actions", "12000", "--seed", "3", "--quiet").status == 0)
        try #require(try cli.run("project").status == 0)
        let file = directory.path + "/archive-1.jsonl"
        let running = try Processes.start(Processes.evtool, ["archive", "--before", "10000", "--to", file, "--store", cli.store])
        // Interrupted as soon as the file is being written (or, on a fast machine, after).
        let deadline = Date().addingTimeInterval(60)
        while running.isRunning, Date() < deadline, !FileManager.default.fileExists(atPath: file + ".partial") { Thread.sleep(forTimeInterval: 0.002) }
        running.send(SIGINT)
        let stopped = try running.finish()
        if stopped.status == 130 {
            #expect(stopped.errors == "Error: interrupted; nothing was archived and no file was left; run the same command again\n", "\(stopped)")
            #expect(!FileManager.default.fileExists(atPath: file + ".partial") && !FileManager.default.fileExists(atPath: file), "\(stopped)")
            let again = try cli.run("archive", "--before", "10000", "--to", file)
            #expect(again.status == 0 && again.output.hasPrefix("archived 9,999 events below position 10000"), "\(again)")
        } else {
            // It finished before the signal: nothing to check but that it did.
            #expect(stopped.status == 0, "\(stopped)")
        }
        #expect(!FileManager.default.fileExists(atPath: file + ".partial"))
        #expect(try cli.run("verify", "--archive", file).status == 0)
    }

}
