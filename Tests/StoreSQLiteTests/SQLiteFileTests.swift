import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// What only the SQLite store has: its file, its schema version, its durability settings.
@Suite("SQLite: the file")
struct SQLiteFileTests {
    @Test("a person can read the log with the sqlite3 shell: plain names, JSON as text")
    func readableWithShell() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz","distance":10}"#.utf8)), to: "user-1", expectedVersion: .noStream)
        try store.append(ProposedEvent(type: "Favorited", data: Data(#"{"listingId":"L1"}"#.utf8)), to: "user-1", expectedVersion: .exactly(1))
        let result = try Processes.run(Processes.sqlite3, [path,
            "SELECT position, stream_id, version, type, json_extract(data, '$.keyword'), length(recorded_at) FROM events ORDER BY position;"
            + "SELECT value FROM evtool_meta WHERE key = 'schema_version';"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == "1|user-1|1|Searched|jazz|27\n2|user-1|2|Favorited||27\n8\n")
    }

    @Test("the schema is created once, and reopening leaves it and the events alone")
    func reopenIsIdempotent() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        do {
            let store = try SQLiteEventStore(path: path)
            try store.append(ProposedEvent(type: "T", data: Data("{}".utf8)), to: "s", expectedVersion: .noStream)
            #expect(try store.schemaVersion() == 8)
        }
        let reopened = try SQLiteEventStore(path: path)
        #expect(try reopened.schemaVersion() == 8)
        #expect(try reopened.version(of: "s") == 1)
        let journal = try Processes.run(Processes.sqlite3, [path, "PRAGMA journal_mode;"])
        #expect(journal.output == "wal\n")
    }

    @Test("a file of a newer schema is refused, not touched")
    func newerSchemaRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        _ = try SQLiteEventStore(path: path)
        _ = try Processes.run(Processes.sqlite3, [path, "PRAGMA user_version = 99;"])
        #expect(throws: EventStoreError.newerSchema(found: 99, supported: SQLiteEventStore.schemaVersion)) { try SQLiteEventStore(path: path) }
        #expect(try Processes.run(Processes.sqlite3, [path, "PRAGMA user_version;"]).output == "99\n")
        let error = #expect(throws: EventStoreError.self) { try SQLiteEventStore(path: path) }
        #expect(error?.description == "the store has schema version 99, but this evtool supports up to 8; upgrade evtool")
    }

    @Test("files that are not evtool stores are refused with a clear error")
    func foreignFilesRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let text = directory.path + "/notes.txt"
        try String(repeating: "not a database\n", count: 200).write(toFile: text, atomically: true, encoding: .utf8)
        #expect(throws: EventStoreError.corrupt("'\(text)' is not an SQLite database")) { try SQLiteEventStore(path: text) }

        let other = directory.path + "/other.sqlite"
        _ = try Processes.run(Processes.sqlite3, [other, "CREATE TABLE customers (id INTEGER PRIMARY KEY);"])
        #expect(throws: EventStoreError.corrupt("'\(other)' is an SQLite database, but not an evtool store")) { try SQLiteEventStore(path: other) }

        #expect(throws: EventStoreError.unavailable("'\(directory.path)' is a directory, not an SQLite file")) {
            try SQLiteEventStore(path: directory.path)
        }
        var options = SQLiteEventStore.Options()
        options.createIfMissing = false
        let missing = directory.path + "/missing.sqlite"
        #expect(throws: EventStoreError.unavailable("no store at '\(missing)' (the file does not exist)")) {
            try SQLiteEventStore(path: missing, options: options)
        }
        #expect(!FileManager.default.fileExists(atPath: missing))
        let noFolder = directory.path + "/no/such/folder/events.sqlite"
        let error = #expect(throws: EventStoreError.self) { try SQLiteEventStore(path: noFolder) }
        #expect(error?.description.hasPrefix("the store is unavailable: cannot open '\(noFolder)'") == true)
    }

    @Test("a truncated store file is reported as damaged")
    func truncatedFile() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        do {
            let store = try SQLiteEventStore(path: path)
            for index in 0..<200 {
                try store.append(ProposedEvent(type: "T", data: Data(#"{"i":\#(index),"pad":"\#(String(repeating: "x", count: 400))"}"#.utf8)),
                                 to: "s\(index % 7)", expectedVersion: .any)
            }
        }
        // Fold the WAL into the file, then cut the file in half.
        _ = try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE);"])
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        let error = #expect(throws: EventStoreError.self) {
            let store = try SQLiteEventStore(path: path)
            _ = try store.readAll(after: 0, limit: 10_000)
        }
        guard case .corrupt = error else {
            Issue.record("expected a corrupt-store error, got \(String(describing: error))")
            return
        }
    }

    @Test("a writer that cannot get the write lock in time gets a clear 'locked' error")
    func busyTimeout() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        _ = try SQLiteEventStore(path: path)
        // Another process holds the write lock for two seconds.
        let holder = try Processes.start(Processes.sqlite3, [path], input: "BEGIN IMMEDIATE;\nSELECT 1;\n.shell sleep 2\nCOMMIT;\n")
        Thread.sleep(forTimeInterval: 0.5)
        var options = SQLiteEventStore.Options()
        options.busyTimeoutMilliseconds = 200
        let store = try SQLiteEventStore(path: path, options: options)
        #expect(throws: EventStoreError.unavailable("'\(path)' is locked by another process (waited for its write lock and gave up)")) {
            try store.append(ProposedEvent(type: "T", data: Data("{}".utf8)), to: "s", expectedVersion: .any)
        }
        _ = try holder.finish()
        // Once the lock is free, the same store appends.
        #expect(try store.append(ProposedEvent(type: "T", data: Data("{}".utf8)), to: "s", expectedVersion: .any).streamVersion == 1)
    }

    @Test("the faster durability setting still appends and reads the same")
    func normalDurability() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        var options = SQLiteEventStore.Options()
        options.durability = .normal
        let store = try SQLiteEventStore(path: directory.path + "/fast.sqlite", options: options)
        try store.append((0..<10).map { ProposedEvent(type: "T", data: Data(#"{"i":\#($0)}"#.utf8)) }, to: "s", expectedVersion: .noStream)
        #expect(try store.read(stream: "s").count == 10)
    }

    @Test("a version 2 file is upgraded on open: every existing event gets its chain hash")
    func upgradeFillsHashes() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        var expected: [String] = []
        do {
            let store = try SQLiteEventStore(path: path)
            try store.append([ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)),
                              ProposedEvent(type: "Favorited", data: Data(#"{"listingId":"L1"}"#.utf8))], to: "user-1", expectedVersion: .noStream)
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"rock"}"#.utf8)), to: "user-2", expectedVersion: .noStream)
            expected = try store.readAll(after: 0, limit: 10).map(\.hash)
        }
        // Turn the file back into what version 2 wrote.
        let downgrade = try Processes.run(Processes.sqlite3, [path, """
            DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete; DROP TRIGGER events_position_range;
            DROP TABLE erasures; DROP TABLE seals; ALTER TABLE events DROP COLUMN hash; PRAGMA user_version = 2;
            """])
        #expect(downgrade.status == 0, "\(downgrade.errors)")
        let reopened = try SQLiteEventStore(path: path)
        #expect(try reopened.schemaVersion() == 8)
        #expect(try reopened.readAll(after: 0, limit: 10).map(\.hash) == expected)
        try reopened.append(ProposedEvent(type: "Searched", data: Data("{}".utf8)), to: "user-1", expectedVersion: .exactly(2))
    }

    @Test("upgrading a version 3 file moves its view documents into the version 4 table, unchanged")
    func upgradeFromVersion3KeepsViews() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        do {
            let store = try SQLiteEventStore(path: path)
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)), to: "user-1", expectedVersion: .noStream)
            let generation = try store.startGeneration(of: "favorites", version: 1)
            try store.commit(ViewChanges(projection: "favorites", generation: generation.generation,
                                         documents: ["user-1": Data(#"{"items":[1]}"#.utf8), "user-2": Data(#"{"items":[2]}"#.utf8)],
                                         fromPosition: 0, toPosition: 1, activate: true))
        }
        // Turn the views table back into what version 3 wrote.
        let downgrade = try Processes.run(Processes.sqlite3, [path, """
            CREATE TABLE old (projection TEXT NOT NULL, generation INTEGER NOT NULL, key TEXT NOT NULL, document TEXT NOT NULL,
                              PRIMARY KEY (projection, generation, key)) WITHOUT ROWID;
            INSERT INTO old SELECT projection, generation, key, document FROM view_documents;
            DROP TABLE view_documents; ALTER TABLE old RENAME TO view_documents; DROP TRIGGER events_position_range;
            PRAGMA user_version = 3;
            """])
        #expect(downgrade.status == 0, "\(downgrade.errors)")
        let reopened = try SQLiteEventStore(path: path)
        #expect(try reopened.schemaVersion() == 8)
        #expect(try reopened.documents(of: "favorites", generation: 1, keys: ["user-1", "user-2"])
                == ["user-1": Data(#"{"items":[1]}"#.utf8), "user-2": Data(#"{"items":[2]}"#.utf8)])
        let shape = try Processes.run(Processes.sqlite3, [path, "SELECT count(rowid) FROM view_documents; SELECT name FROM sqlite_master WHERE tbl_name = 'view_documents' AND type = 'index';"])
        #expect(shape.output == "2\nview_documents_key\n", "\(shape)")
    }

    @Test("the file itself refuses UPDATE and DELETE of events, even from the sqlite3 shell")
    func appendOnlyTriggers() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)), to: "user-1", expectedVersion: .noStream)
        for sql in ["UPDATE events SET data = '{}' WHERE position = 1;",
                    "UPDATE events SET data = '{\"erased\":true}', metadata = '{\"erased\":true}' WHERE position = 1;",
                    "DELETE FROM events;"] {
            let result = try Processes.run(Processes.sqlite3, [path, sql])
            #expect(result.status != 0, "\(sql)")
            #expect(result.errors.contains("append-only"), "\(result.errors)")
        }
        #expect(try store.read(stream: "user-1").first?.data == Data(#"{"keyword":"jazz"}"#.utf8))
        let insert = try Processes.run(Processes.sqlite3, [path, "INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at) VALUES ('x', 1, 'id', 'T', '{}', '{}', 't');"])
        #expect(insert.status == 0, "appending stays possible: \(insert.errors)")
    }
}
