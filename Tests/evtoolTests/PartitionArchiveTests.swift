import Foundation
@testable import StorePostgres
import TestSupport
import Testing

/// `evtool archive` on a partitioned PostgreSQL store (schema 10): whole partitions below the
/// boundary detached and dropped, the rows below it in the partition it falls in deleted;
/// verify from the boundary and with the files; views and history across it; the upgrade of a
/// schema-9 store in place; a kill at any moment of the archive.
@Suite("Archive on partitioned PostgreSQL: partitions detached, the log carried on", .serialized)
struct PartitionArchiveTests {
    struct Store {
        let cli: CLI
        let url: String
        let schema: String

        /// SQL as the superuser, in the store's schema; one line of unaligned output per row.
        func sql(_ text: String) throws -> Processes.Result {
            try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-c", "SET search_path = \(schema); " + text])
        }

        /// The partitions, as `name:end` in position order.
        func partitions() throws -> [String] {
            try sql("SELECT name || ':' || end_position FROM event_partitions()").output.split(separator: "\n").map(String.init)
        }

        func drop() { TestStores.dropPostgres(url: url, schema: schema) }
    }

    /// A new store whose partitions hold `size` positions (nil: the default).
    static func store(_ directory: TemporaryDirectory, size: Int?) throws -> Store {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        var location = url + (url.contains("?") ? "&" : "?")
        // Partitioned (schema 18: a new store is one table unless asked).
        location += size.map { "options=-c%20evtool.partition_size%3D\($0)&" } ?? "options=-c%20evtool.layout%3Dpartitioned&"
        let cli = CLI(store: location + "schema=\(schema)", directory: directory.path)
        #expect(try cli.run("init").status == 0)
        return Store(cli: cli, url: url, schema: schema)
    }

    /// `count` actions of three users, in turn: favorites and searches.
    static func act(_ cli: CLI, count: Int, from start: Int = 0) throws {
        let users = ["ada", "bob", "cyd"]
        for index in start..<(start + count) {
            let user = users[index % 3]
            let result = index % 2 == 0
                ? try ArchiveTests.favorite(cli, user, "L\(index)")
                : try cli.run("search", "--user", user, "--keyword", "k\(index)", "--location", "Los Angeles")
            #expect(result.status == 0, "\(result)")
        }
    }

    static func views(_ cli: CLI) throws -> [String] {
        try ["ada", "bob", "cyd"].flatMap { user in
            [try cli.run("favorites", "--user", user, "--json").output, try cli.run("recent", "--user", user, "--json").output]
        }
    }

    @Test("archive across partitions of 5: whole partitions detached and dropped, the rest of a partition deleted; verify from each boundary and with the files; views equal a rebuild of a copy that was never archived")
    func archiveAcrossPartitions() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Self.store(directory, size: 5); defer { store.drop() }
        let cli = store.cli
        try Self.act(cli, count: 14)
        #expect(try cli.run("project").status == 0)
        #expect(try cli.run("seal").status == 0)
        #expect(try store.partitions().prefix(4) == ["events_p1:6", "events_p6:11", "events_p11:16", "events_p16:21"])
        let before = try Self.views(cli)

        // At a partition boundary: two partitions go whole, no row is deleted.
        let first = directory.path + "/a1.jsonl"
        let archived = try cli.run("archive", "--before", "11", "--to", first)
        #expect(archived.status == 0 && archived.output.hasPrefix("archived 10 events below position 11 to \(first) (archive 1, SHA-256 "), "\(archived)")
        #expect(try store.partitions().first == "events_p11:16")
        #expect(try store.sql("SELECT count(*) FROM events").output == "4\n")
        #expect(try cli.run("verify").output == "OK: 4 events from position 11 in 3 streams, 1 seal verified; 10 archived events (positions 1–10) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try cli.run("verify", "--archive", first).output == "OK: 14 events in 3 streams, 1 seal verified\n")
        #expect(try Self.views(cli) == before)
        let history = try cli.run("history", "--user", "ada")
        #expect(history.status == 0 && history.output.split(separator: "\n").count == 2, "ada's one kept event is at 13: \(history)")

        // Commands carry on across the boundary, into new partitions.
        try Self.act(cli, count: 5, from: 14)
        #expect(try cli.run("project").status == 0)
        // Inside a partition: the rows below the boundary in it are deleted, the partition stays.
        let second = directory.path + "/a2.jsonl"
        #expect(try cli.run("archive", "--before", "13", "--to", second).status == 0)
        #expect(try store.partitions().first == "events_p11:16")
        #expect(try store.sql("SELECT min(position), count(*) FROM events").output == "13|7\n")
        // A partition whose rows were all archived goes at the next boundary past it.
        let third = directory.path + "/a3.jsonl"
        #expect(try cli.run("archive", "--before", "16", "--to", third).status == 0)
        #expect(try store.partitions().first == "events_p16:21")
        #expect(try store.sql("SELECT min(position), count(*) FROM events").output == "16|4\n")
        #expect(try cli.run("seal").status == 0)
        #expect(try cli.run("verify").output == "OK: 4 events from position 16 in 3 streams, 2 seals verified; 15 archived events (positions 1–15) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try cli.run("verify", "--archive", first, "--archive", second, "--archive", third).output == "OK: 19 events in 3 streams, 2 seals verified\n")
        // The rows above the boundary stay append-only, in their partition too.
        let delete = try store.sql("DELETE FROM events_p16 WHERE position = 17;")
        #expect(delete.status != 0 && delete.errors.contains("append-only"), "\(delete)")

        // A copy that was never archived: the three files and the kept log, imported in order.
        let copy = CLI(store: directory.path + "/copy.sqlite", directory: directory.path)
        let kept = try cli.file("kept.jsonl", try cli.run("export").output)
        for file in [first, second, third, kept] {
            let imported = try copy.run("import", file)
            #expect(imported.status == 0, "\(imported)")
        }
        #expect(try copy.run("rebuild").status == 0)
        let never = try Self.views(copy)
        #expect(try Self.views(cli) == never)
        // And a rebuild of the archived store from the files equals it too.
        let rebuilt = try cli.run("rebuild", "--archive", first, "--archive", second, "--archive", third)
        #expect(rebuilt.status == 0 && rebuilt.output.hasPrefix("rebuilt "), "\(rebuilt)")
        #expect(try Self.views(cli) == never)
    }

    @Test("rebuild --archive FILE…: the views rebuilt from the archive files and the kept log equal a rebuild of a copy never archived; files missing, swapped or changed are refused and the views stay", arguments: ["sqlite", "postgres"])
    func rebuildFromArchives(kind: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, _, cleanup) = try ArchiveTests.store(kind, directory); defer { cleanup() }
        try ArchiveTests.makeLog(cli)
        let first = directory.path + "/a1.jsonl", second = directory.path + "/a2.jsonl"
        #expect(try cli.run("archive", "--before", "4", "--to", first).status == 0)
        try Self.act(cli, count: 4, from: 6)
        #expect(try cli.run("project").status == 0)
        #expect(try cli.run("archive", "--before", "8", "--to", second).status == 0)
        let views = try Self.views(cli)

        var result = try cli.run("rebuild")
        #expect(result.status == 69 && result.errors.contains("'evtool rebuild --archive FILE…'"), "\(result)")
        result = try cli.run("rebuild", "--archive", first)
        #expect(result.status == 65 && result.errors.contains("records 2 archives"), "\(result)")
        result = try cli.run("rebuild", "--archive", second, "--archive", first)
        #expect(result.status == 65, "\(result)")
        let forged = try cli.file("forged.jsonl", try String(contentsOfFile: first, encoding: .utf8).replacingOccurrences(of: "jazz", with: "jazZ"))
        result = try cli.run("rebuild", "--archive", forged, "--archive", second)
        #expect(result.status == 65 && result.errors.hasPrefix("Error: the log fails verification"), "\(result)")
        #expect(try Self.views(cli) == views)

        result = try cli.run("rebuild", "--archive", first, "--archive", second)
        #expect(result.status == 0 && result.output.hasPrefix("rebuilt favorites"), "\(result)")
        #expect(try Self.views(cli) == views)
        // The same as a copy that was never archived, rebuilt.
        let copy = CLI(store: directory.path + "/copy.sqlite", directory: directory.path)
        let kept = try cli.file("kept.jsonl", try cli.run("export").output)
        for file in [first, second, kept] { #expect(try copy.run("import", file).status == 0) }
        #expect(try copy.run("rebuild").status == 0)
        #expect(try Self.views(copy) == views)
        #expect(try cli.run("verify", "--archive", first, "--archive", second).status == 0)
    }

    /// Puts a schema-10 store's events table back as schema 9 has it: one table with its unique
    /// constraints and triggers, no event_ids or partitioning, version 9's functions.
    static func downgradeToVersion9(_ store: Store) throws {
        let schema = try PostgresSchema(name: store.schema)
        // Version 4's append function (its text ends with it), version 8's append_one, version 9.
        let version4 = PostgresMigration.version4.sql(schema: schema)
        let append = try #require(version4.range(of: "CREATE OR REPLACE FUNCTION \(schema.quoted).append("))
        let functions = [String(version4[append.lowerBound...])] + [PostgresMigration.version8, PostgresMigration.version9].map { $0.sql(schema: schema) }
        let text = """
            BEGIN;
            SET search_path = \(store.schema);
            CREATE TABLE events_plain (LIKE events INCLUDING DEFAULTS);
            INSERT INTO events_plain SELECT * FROM events ORDER BY position;
            DROP TABLE events CASCADE;
            DROP TABLE event_ids, partitioning;
            DROP FUNCTION make_partitions(bigint), event_partitions();
            ALTER TABLE events_plain RENAME TO events;
            ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (position),
                ADD CONSTRAINT events_event_id_key UNIQUE (event_id),
                ADD CONSTRAINT events_stream_version_key UNIQUE (stream_id, version),
                ADD CONSTRAINT events_position_check CHECK (position >= 1 AND version >= 1) NOT VALID;
            CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION refuse_change();
            CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events FOR EACH STATEMENT EXECUTE FUNCTION refuse_change();
            """ + "\n" + functions.joined(separator: "\n") + """

            UPDATE \(schema.quoted).schema_version SET version = 9;
            COMMIT;
            """
        let applied = try Processes.run(Processes.psql, [store.url, "-X", "-q", "-v", "ON_ERROR_STOP=1"], input: text)
        #expect(applied.status == 0, "\(applied)")
        #expect(try store.sql("SELECT relkind FROM pg_class WHERE oid = 'events'::regclass").output == "r\n")
    }

    @Test("a schema-9 store with events, views, seals, a signed checkpoint, the kept tree and an archive is upgraded in place: the same verify, views and checkpoint, appends carry on into partitions")
    func upgradeFromVersion9() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Self.store(directory, size: nil); defer { store.drop() }
        let cli = store.cli
        try ArchiveTests.makeLog(cli)
        #expect(try CLI.bare("keys", "create", "--out", directory.path + "/keys").status == 0)
        let checkpoint = directory.path + "/cp.txt"
        #expect(try cli.run("seal", "--key", directory.path + "/keys/checkpoint-key.pem", "--checkpoint-out", checkpoint).status == 0)
        let file = directory.path + "/a1.jsonl"
        #expect(try cli.run("archive", "--before", "4", "--to", file).status == 0)
        let views = try Self.views(cli)
        let verified = try cli.run("verify").output
        #expect(verified == "OK: 3 events from position 4 in 3 streams, 2 seals verified; 3 archived events (positions 1–3) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        try Self.downgradeToVersion9(store)

        // A read does not upgrade; init does, in place.
        let read = try cli.run("verify")
        #expect(read.status != 0 && read.errors.contains("has schema version 9 and this release uses \(PostgresSchema.currentVersion)"), "\(read)")
        #expect(try cli.run("init").status == 0)
        #expect(try store.sql("SELECT version FROM schema_version").output == "\(PostgresSchema.currentVersion)\n")
        #expect(try store.partitions() == ["events_p1:1000001", "events_p1000001:2000001"])
        #expect(try store.sql("SELECT count(*) FROM event_ids").output == "3\n", "the kept events' ids")
        #expect(try cli.run("verify").output == verified)
        #expect(try cli.run("verify", "--archive", file).output == "OK: 6 events in 3 streams, 2 seals verified\n")
        let publicKey = directory.path + "/keys/checkpoint-key.pub.pem"
        let checked = try cli.run("verify", "--checkpoint", checkpoint, "--public-key", publicKey, "--archive", file)
        #expect(checked.status == 0, "\(checked)")
        #expect(try Self.views(cli) == views)
        // ada's favorites are archived: the decision state kept at the boundary carries on.
        let unfavorite = try cli.run("unfavorite", "--user", "ada", "--listing", "L1")
        #expect(unfavorite.output == "recorded Unfavorited for ada: version 4, position 7\n", "\(unfavorite)")
        #expect(try cli.run("verify").output == "OK: 4 events from position 4 in 3 streams, 2 seals verified; 3 archived events (positions 1–3) not checked: give --archive FILE (every archive's, oldest first) to check them\n")
        #expect(try store.sql("SELECT tableoid::regclass::text FROM events WHERE position = 7").output.hasSuffix("events_p1\n"))
        // Opening it again changes nothing.
        #expect(try cli.run("init").status == 0)
        #expect(try store.partitions() == ["events_p1:1000001", "events_p1000001:2000001"])
    }

    @Test("kill -9 during an archive that detaches partitions leaves the old state or the new one, and either verifies", arguments: [0.1, 0.4, 0.8, 1.6])
    func killed(after delay: Double) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try Self.store(directory, size: 100); defer { store.drop() }
        let cli = store.cli
        #expect(try cli.run("demo", "--users", "40", "--actions", "1500", "--quiet").status == 0)
        #expect(try cli.run("project").status == 0)
        let head = try #require(Int(try store.sql("SELECT max(position) FROM events").output.trimmingCharacters(in: .whitespacesAndNewlines)))
        let boundary = (head - 10 - 1) / 100 * 100 + 1
        #expect(boundary > 100, "the demo made \(head) events")
        let partitions = try store.partitions()
        let file = directory.path + "/a.jsonl"
        let running = try Processes.start(Processes.evtool, ["archive", "--before", "\(boundary)", "--to", file, "--store", cli.store])
        Thread.sleep(forTimeInterval: delay)
        running.send(SIGKILL)
        let outcome = try running.finish()
        Thread.sleep(forTimeInterval: 0.5)   // the server finishes the killed session's transaction
        let recorded = try store.sql("SELECT count(*) FROM archives").output
        let verify = try cli.run("verify")
        #expect(verify.status == 0, "after a kill at \(delay) s: \(verify) (\(outcome))")
        if recorded == "1\n" {
            #expect(try store.partitions() == partitions.filter { Int($0.split(separator: ":")[1])! > boundary })
            #expect(try cli.run("verify", "--archive", file).status == 0)
            #expect(try store.sql("SELECT min(position), count(*) FROM events").output == "\(boundary)|\(head - boundary + 1)\n")
        } else {
            #expect(recorded == "0\n", "\(recorded)")
            #expect(try store.partitions() == partitions)
            #expect(try store.sql("SELECT count(*) FROM events").output == "\(head)\n")
            let rerun = try cli.run("archive", "--before", "\(boundary)", "--to", directory.path + "/b.jsonl")
            #expect(rerun.status == 0, "\(rerun)")
            #expect(try cli.run("verify", "--archive", directory.path + "/b.jsonl").status == 0)
            #expect(try store.partitions() == partitions.filter { Int($0.split(separator: ":")[1])! > boundary })
        }
    }
}
