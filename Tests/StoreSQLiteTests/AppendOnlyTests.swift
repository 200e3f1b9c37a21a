import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// Every append-only rule the file enforces by itself (its triggers), each tried from the
/// sqlite3 shell on a store that holds events, an erasure and seals: events, erasures and
/// seals can be added to, never changed or removed, except an erasure's tombstone.
@Suite("SQLite: the file's append-only triggers, one by one")
struct AppendOnlyTests {
    /// Each change the file must refuse: what it tries, and the SQL.
    static let refused: [(String, String)] = [
        ("delete an event", "DELETE FROM events WHERE position = (SELECT max(position) FROM events);"),
        ("delete every event", "DELETE FROM events;"),
        ("change an event's data", "UPDATE events SET data = '{}' WHERE position = (SELECT max(position) FROM events);"),
        ("change an event's type", "UPDATE events SET type = 'Forged' WHERE position = 1;"),
        ("change an event's hash", "UPDATE events SET hash = '\(String(repeating: "0", count: 64))' WHERE position = 1;"),
        ("renumber an event", "UPDATE events SET version = version + 10 WHERE position = (SELECT max(position) FROM events);"),
        ("a tombstone without an erasure record",
         #"UPDATE events SET data = '{"erased":true}', metadata = '{"erased":true}' WHERE position = (SELECT max(position) FROM events);"#),
        ("change an erased event's hash", "UPDATE events SET hash = '\(String(repeating: "1", count: 64))' WHERE position = (SELECT min(position) FROM erasures);"),
        ("change an erasure record", "UPDATE erasures SET position = position;"),
        ("delete an erasure record", "DELETE FROM erasures;"),
        ("change a seal", "UPDATE seals SET events = events;"),
        ("delete a seal", "DELETE FROM seals;"),
    ]

    /// A store with ada's erased events, bob's events after them, and a seal before and after.
    static func populated(in directory: String) throws -> String {
        let path = directory + "/events.sqlite"
        func evtool(_ arguments: String...) throws {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", "sqlite:\(path)"])
            try #require(result.status == 0, "\(arguments): \(result)")
        }
        try evtool("search", "--user", "ada", "--keyword", "jazz", "--location", "Los Angeles")
        try evtool("search", "--user", "ada", "--keyword", "opera", "--location", "Los Angeles")
        try evtool("seal")
        try evtool("forget", "--user", "ada", "--reason", "test", "--by", "tester")
        try evtool("search", "--user", "bob", "--keyword", "rock", "--location", "Chicago")
        try evtool("seal")
        return path
    }

    /// The whole file as SQL text.
    static func dump(_ path: String) throws -> String {
        let result = try Processes.run(Processes.sqlite3, [path, ".dump"])
        try #require(result.status == 0, "\(result)")
        return result.output
    }

    /// Tries every change in ``refused``, each on its own copy of the file (so one that gets
    /// through does not hide the others): each fails naming the rule, and the copy is unchanged.
    static func expectRefusals(_ path: String, _ context: String) throws {
        let before = try dump(path)
        for table in ["events", "erasures", "seals"] {
            let count = try Processes.run(Processes.sqlite3, [path, "SELECT count(*) FROM \(table);"])
            try #require(Int(count.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0,
                         "\(context): the store holds no \(table), so the rules on them would not be tried: \(count)")
        }
        for (index, (change, sql)) in refused.enumerated() {
            let copy = path + "-copy-\(index)"
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            let result = try Processes.run(Processes.sqlite3, [copy, sql])
            #expect(result.status != 0 && result.errors.contains("append-only"), "\(context): \(change) was not refused: \(result)")
            #expect(try dump(copy) == before, "\(context): \(change) changed the file")
        }
    }

    @Test("a new store refuses every change and removal of events, erasure records and seals, and keeps its rows")
    func newStore() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.populated(in: directory.path)
        // One file, no WAL beside it: each copy is the whole store.
        try #require(try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE);"]).status == 0)
        try Self.expectRefusals(path, "a new store")
        let verify = try Processes.run(Processes.evtool, ["verify", "--store", "sqlite:\(path)"])
        #expect(verify.status == 0, "\(verify)")
    }

    @Test("a store upgraded from version 2 gets every rule back")
    func upgradedStore() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        do {
            let store = try SQLiteEventStore(path: path)
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8)), to: "user-1", expectedVersion: .noStream)
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"rock"}"#.utf8)), to: "user-2", expectedVersion: .noStream)
        }
        // What version 2 wrote: no hashes, no erasures or seals, no triggers.
        let downgrade = try Processes.run(Processes.sqlite3, [path, """
            DROP TRIGGER IF EXISTS events_append_only_update; DROP TRIGGER IF EXISTS events_append_only_delete;
            DROP TRIGGER IF EXISTS events_position_range;
            DROP TABLE erasures; DROP TABLE seals; ALTER TABLE events DROP COLUMN hash; PRAGMA user_version = 2;
            """])
        try #require(downgrade.status == 0, "\(downgrade)")
        let reopened = try SQLiteEventStore(path: path)
        #expect(try reopened.schemaVersion() == 8)
        // Then an erasure and seals, as on any store of today's version.
        for arguments in [["seal"], ["forget", "--user", "user-1", "--reason", "test", "--by", "tester"], ["seal"]] {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", "sqlite:\(path)"])
            try #require(result.status == 0, "\(arguments): \(result)")
        }
        try #require(try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE);"]).status == 0)
        try Self.expectRefusals(path, "an upgraded store")
    }
}
