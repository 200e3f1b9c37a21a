import EventLog
import Foundation
import Testing
import TestSupport

/// Copies of an erased log cut short (issue 31, item 6): a `migrate` killed part way, an
/// `import` of an export killed part way, an `archive` whose file holds an erasure's record.
/// The target is a faithful prefix of the source (or the log with its archive): `verify` says
/// what it is, an incomplete copy naming the command that completes it, never tampering; a
/// tombstone with no erasure record and no copy under way is still tampering.
@Suite(.serialized)
struct InterruptedCopyTests {
    /// One store of either kind, how to count its events and how to run SQL on it as its owner.
    struct Store {
        let location: String
        let sql: (String) throws -> Processes.Result
        let cleanup: () -> Void

        /// `partitioned`: a PostgreSQL store with the partitioned layout, which archive needs.
        static func make(_ kind: String, _ directory: TemporaryDirectory, name: String, partitioned: Bool = false) throws -> Store {
            if kind == "sqlite" {
                let path = directory.path + "/\(name).sqlite"
                return Store(location: "sqlite:" + path, sql: { try Processes.run(Processes.sqlite3, [path, $0]) }, cleanup: {})
            }
            let url = try partitioned ? TestStores.partitionedPostgresURL() : TestStores.postgresURL(), schema = TestStores.freshSchema()
            return Store(location: url + (url.contains("?") ? "&" : "?") + "schema=" + schema,
                         sql: { try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", "SET search_path = \(schema); " + $0]) },
                         cleanup: { TestStores.dropPostgres(url: url, schema: schema) })
        }

        /// The rows of its events table (0 before the store exists).
        func events() throws -> Int {
            let result = try sql("SELECT count(*) FROM events;")
            return result.status == 0 ? Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 : 0
        }
    }

    /// A log whose first events are the erased user's: positions 1–2 `victim`'s searches,
    /// then `others` events of seven other users, then the erasure (marker and UserErased).
    static func erasedLog(_ cli: CLI, others: Int) throws {
        for keyword in ["jazz", "opera"] {
            let result = try cli.run("search", "--user", "victim", "--keyword", keyword, "--location", "Los Angeles")
            #expect(result.status == 0, "\(result)")
        }
        let lines = (1...others).map { #"{"stream":"user-\#($0 % 7)","type":"Noted","data":{"n":\#($0)},"metadata":{}}"# }
        let imported = try cli.run("import", try cli.file("others.jsonl", lines.joined(separator: "\n") + "\n"), "--quiet")
        #expect(imported.status == 0, "\(imported)")
        let forgot = try cli.run("forget", "--user", "victim", "--reason", "ticket 31", "--by", "dpo")
        #expect(forgot.status == 0, "\(forgot)")
    }

    /// Starts `arguments`, waits until `target` holds at least `least` events, and kills the
    /// process with SIGKILL; false when the process ended before that (nothing was cut short).
    static func kill(_ arguments: [String], when target: Store, holds least: Int) throws -> Bool {
        let running = try Processes.start(Processes.evtool, arguments)
        let deadline = Date().addingTimeInterval(120)
        while running.isRunning, Date() < deadline, try target.events() < least { Thread.sleep(forTimeInterval: 0.02) }
        let cut = running.isRunning
        running.send(SIGKILL)
        _ = try running.finish()
        return cut
    }

    @Test("migrate killed after an erased user's tombstones and before their UserErased event: verify and seal name an incomplete copy and the migrate that completes it",
          arguments: [("sqlite", "postgres"), ("postgres", "sqlite")])
    func migrateCutShort(kinds: (String, String)) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = try Store.make(kinds.0, directory, name: "source"); defer { source.cleanup() }
        let target = try Store.make(kinds.1, directory, name: "target"); defer { target.cleanup() }
        let from = CLI(store: source.location, directory: directory.path), to = CLI(store: target.location, directory: directory.path)
        try Self.erasedLog(from, others: 3_000)
        let total = try source.events()

        let cut = try Self.kill(["migrate", "--from", source.location, "--to", target.location, "--batch", "1", "--quiet"], when: target, holds: 3)
        try #require(cut, "the migrate ended before it was killed")
        let copied = try target.events()
        #expect(copied >= 3 && copied < total, "a prefix: \(copied) of \(total)")

        // What the operator checks after the crash: an incomplete copy, and how to complete it.
        var result = try to.run("verify")
        #expect(result.status == 68, "\(result)")
        #expect(result.errors.contains("this store is an incomplete copy: a migrate from \(source.location) stopped") && result.errors.contains("stopped before it copied the UserErased event")
                && result.errors.contains("2 tombstones, the first at position 1 (stream 'victim')"), "\(result)")
        #expect(!result.errors.contains("modified") && !result.errors.contains("tamper"), "\(result)")
        let command = try #require(result.errors.range(of: "complete it with 'evtool ").map { result.errors[$0.upperBound...] }?
            .split(separator: "'").first.map(String.init))
        #expect(command == "migrate --from \(source.location) --to \(target.location)", "\(command)")
        result = try to.run("verify", "--stream", "victim")
        #expect(result.status == 68 && result.errors.contains("this store is an incomplete copy: a migrate from \(source.location) stopped"), "\(result)")
        result = try to.run("seal")
        #expect(result.status == 68 && result.errors.contains("this store is an incomplete copy: a migrate from \(source.location) stopped"), "nothing sealed: \(result)")
        #expect(try target.sql("SELECT count(*) FROM seals;").output.trimmingCharacters(in: .whitespacesAndNewlines) == "0")

        // Without the store's record of the copy, the same tombstones are what a hand-written
        // erasure leaves: tampering, as before.
        let record = kinds.1 == "sqlite" ? "SELECT value FROM evtool_meta WHERE key = 'unfinished_copy_from';" : "SELECT source FROM unfinished_copy;"
        let recorded = try target.sql(record).output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(!recorded.isEmpty, "the copy is recorded")
        let removal = kinds.1 == "sqlite" ? "DELETE FROM evtool_meta WHERE key = 'unfinished_copy_from';" : "DELETE FROM unfinished_copy;"
        #expect(try target.sql(removal).status == 0)
        result = try to.run("verify")
        #expect(result.status == 65 && result.errors.contains("modified at position 1, stream 'victim'")
                && result.errors.contains("no UserErased event in the log covers"), "\(result)")
        #expect(try target.sql("INSERT INTO \(kinds.1 == "sqlite" ? "evtool_meta (key, value) VALUES ('unfinished_copy_from', '\(recorded)')" : "unfinished_copy (id, source) VALUES (1, '\(recorded)')");").status == 0)

        // The command named completes it: the whole log, which verifies, and no record is left.
        result = try Processes.run(Processes.evtool, command.split(separator: " ").map(String.init) + ["--quiet"])
        #expect(result.status == 0, "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.contains("OK: \(total.counted("event"))") && result.output.contains("(2 erased, accepted by their kept digests)"), "\(result)")
        #expect(try target.sql(record).output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "the record is removed")
        #expect(try to.run("seal").status == 0)
    }

    @Test("import of an erased log's export killed part way: the prefix verifies, and the rerun completes it", arguments: ["sqlite", "postgres"])
    func importCutShort(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = try Store.make("sqlite", directory, name: "source")
        let target = try Store.make(kind, directory, name: "target"); defer { target.cleanup() }
        let from = CLI(store: source.location, directory: directory.path), to = CLI(store: target.location, directory: directory.path)
        try Self.erasedLog(from, others: 3_000)
        let export = try from.run("export")
        let file = try from.file("export.jsonl", export.output)
        let total = try source.events()

        let cut = try Self.kill(["import", file, "--batch", "1", "--quiet", "--store", target.location], when: target, holds: 3)
        try #require(cut, "the import ended before it was killed")
        #expect(try target.events() < total)
        var result = try to.run("verify")
        #expect(result.status == 0 && result.output.hasPrefix("OK: "), "a prefix of the export verifies as what it is: \(result)")
        result = try to.run("import", file, "--quiet")
        #expect(result.status == 0, "\(result)")
        result = try to.run("verify")
        #expect(result.status == 0 && result.output.hasPrefix("OK: \(total.counted("event"))"), "\(result)")
    }

    /// A log whose erasure's UserErased event is archived: `verify --archive` meets the
    /// tombstones in the file before the record that covers them, in the same file.
    static func archivedErasure(_ cli: CLI) throws -> (file: String, before: Int) {
        try erasedLog(cli, others: 40)
        // 2 + 40 + marker + UserErased = 44; two more after it.
        for keyword in ["rock", "soul"] {
            #expect(try cli.run("search", "--user", "bob", "--keyword", keyword, "--location", "Los Angeles").status == 0)
        }
        #expect(try cli.run("project").status == 0)
        return (cli.directory + "/archive-1.jsonl", 46)
    }

    @Test("archive of an erasure's record: verify --archive meets the tombstones before it and accepts them", arguments: ["sqlite", "postgres"])
    func archivedErasureRecord(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make(kind, directory, name: "store", partitioned: true); defer { store.cleanup() }
        let cli = CLI(store: store.location, directory: directory.path)
        let (file, before) = try Self.archivedErasure(cli)
        var result = try cli.run("archive", "--before", "\(before)", "--to", file)
        #expect(result.status == 0, "\(result)")
        result = try cli.run("verify")
        #expect(result.status == 0, "\(result)")
        result = try cli.run("verify", "--archive", file)
        #expect(result.status == 0 && result.output.contains("OK: 46 events") && result.output.contains("(2 erased, accepted by their kept digests)"), "\(result)")
        result = try cli.run("rebuild", "--archive", file)
        #expect(result.status == 0, "\(result)")
        #expect(try cli.run("seal").status == 0)
        result = try cli.run("verify", "--archive", file)
        #expect(result.status == 0 && result.output.contains("1 seal verified"), "\(result)")
    }

    @Test("kill -9 during an archive of an erasure's record: the old state or the new one, and either verifies with its file",
          arguments: [0.05, 0.2, 0.5, 1.0])
    func archiveKilled(after delay: Double) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Store.make("sqlite", directory, name: "store")
        let cli = CLI(store: store.location, directory: directory.path)
        let (file, before) = try Self.archivedErasure(cli)
        let running = try Processes.start(Processes.evtool, ["archive", "--before", "\(before)", "--to", file, "--store", store.location])
        Thread.sleep(forTimeInterval: delay)
        running.send(SIGKILL)
        let outcome = try running.finish()
        #expect(try cli.run("verify").status == 0, "after a kill at \(delay) s (\(outcome))")
        let recorded = try store.sql("SELECT count(*) FROM archives;").output
        var archive = file
        if recorded != "1\n" {
            #expect(recorded == "0\n", "\(recorded)")
            archive = directory.path + "/archive-2.jsonl"
            let rerun = try cli.run("archive", "--before", "\(before)", "--to", archive)
            #expect(rerun.status == 0, "\(rerun)")
        }
        let result = try cli.run("verify", "--archive", archive)
        #expect(result.status == 0 && result.output.contains("(2 erased, accepted by their kept digests)"), "after a kill at \(delay) s: \(result)")
    }
}
