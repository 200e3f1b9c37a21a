import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// `evtool verify` and `evtool seal` against files tampered with through the `sqlite3` shell,
/// as someone with write access to the file would: triggers dropped first, the code bypassed.
@Suite("Audit: tamper evidence on SQLite")
struct AuditTests {
    /// Three users' events interleaved: positions 1 u1v1, 2 u2v1, 3 u3v1, 4 u1v2, 5 u2v2,
    /// 6 u3v2, 7 u1v3, 8 u2v3, 9 u1v4.
    static func makeLog(_ directory: TemporaryDirectory) throws -> String {
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        let plan = [("user-1", 1), ("user-2", 1), ("user-3", 1), ("user-1", 2), ("user-2", 2), ("user-3", 2), ("user-1", 3), ("user-2", 3), ("user-1", 4)]
        for (stream, version) in plan {
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"keyword":"\#(stream)-\#(version)"}"#.utf8),
                                           metadata: Data(#"{"ip":"10.0.0.\#(version)"}"#.utf8)),
                             to: stream, expectedVersion: .exactly(Int64(version - 1)))
        }
        return path
    }

    static let dropTriggers = "DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete;"

    static func tamper(_ path: String, _ sql: String) throws {
        let result = try Processes.run(Processes.sqlite3, [path, dropTriggers + sql])
        #expect(result.status == 0, "\(result.errors)")
    }

    static func verify(_ path: String, _ extra: String...) throws -> Processes.Result {
        try Processes.run(Processes.evtool, ["verify", "--store", path] + extra)
    }

    @Test("a payload changed to text that is not JSON is shown as text (dataText), never spliced into the line: its bytes add no members; export and history alike")
    func tamperedPayloadIsNeverSpliced() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        let forged = #"{"n":1}},"stream":"someone-else","hash":"FORGED","x":{"y":1"#
        try Self.tamper(path, "UPDATE events SET data = CAST('\(forged)' AS BLOB) WHERE position = 2;")
        for command in [["log", "--json"], ["export"]] {
            let result = try Processes.run(Processes.evtool, command + ["--store", path])
            #expect(result.status == 0, "\(command): \(result)")
            let line = try #require(result.output.split(separator: "\n").first { $0.contains(#""position":2,"#) }, "\(result.output)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(command): not JSON: \(line)")
            #expect(object["stream"] as? String != "someone-else" && object["hash"] as? String != "FORGED", "\(command): \(line)")
            #expect(object["dataText"] as? String == forged && object["data"] == nil, "\(command): \(line)")
        }
        let verified = try Self.verify(path)
        #expect(verified.status == 65, "verify names the changed event: \(verified)")
    }

    @Test("an untouched log verifies: OK with counts, exit 0")
    func untouched() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        let result = try Self.verify(path)
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "OK: 9 events in 3 streams, 0 seals verified\n")
        let one = try Self.verify(path, "--stream", "user-1")
        #expect(one.output == "OK: 4 events in stream 'user-1'; seals not checked (--stream)\n", "\(one)")
    }

    @Test("one event's data modified: caught, with its position and stream")
    func modified() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        try Self.tamper(path, #"UPDATE events SET data = '{"keyword":"forged"}' WHERE position = 4;"#)
        let result = try Self.verify(path)
        #expect(result.status == 65)
        #expect(result.errors.hasPrefix("Error: the log fails verification: modified at position 4, stream 'user-1': "), "\(result)")
        #expect(try Self.verify(path, "--stream", "user-1").status == 65)
        #expect(try Self.verify(path, "--stream", "user-2").status == 0)
    }

    @Test("one event deleted: caught at the stream's next event")
    func deleted() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        try Self.tamper(path, "DELETE FROM events WHERE position = 4;")
        let result = try Self.verify(path)
        #expect(result.status == 65)
        #expect(result.errors == "Error: the log fails verification: deleted at position 7, stream 'user-1': version 2 is missing before version 3\n", "\(result)")
    }

    @Test("a forged event inserted (later versions renumbered): caught at the forged event")
    func inserted() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        try Self.tamper(path, """
            DROP INDEX events_stream_version;
            UPDATE events SET version = version + 1 WHERE stream_id = 'user-1' AND version >= 2;
            INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash)
            SELECT 'user-1', 2, '0190f5a8-0000-7000-8000-00000000f00d', 'Favorited', '{"listingId":"L666"}', '{}', recorded_at, hash
            FROM events WHERE position = 4;
            """)
        let result = try Self.verify(path)
        #expect(result.status == 65)
        #expect(result.errors.hasPrefix("Error: the log fails verification: inserted at position 10, stream 'user-1': "), "\(result)")
    }

    @Test("a forged event with a version seen before: caught as inserted")
    func insertedDuplicateVersion() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        try Self.tamper(path, """
            DROP INDEX events_stream_version;
            INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash)
            SELECT stream_id, version, '0190f5a8-0000-7000-8000-00000000f00d', type, data, metadata, recorded_at, hash FROM events WHERE position = 8;
            """)
        let result = try Self.verify(path)
        #expect(result.errors.hasPrefix("Error: the log fails verification: inserted at position 10, stream 'user-2': "), "\(result)")
    }

    @Test("two events of a stream swapped: caught as reordered")
    func reordered() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        try Self.tamper(path, """
            UPDATE events SET position = -4 WHERE position = 4;
            UPDATE events SET position = 4 WHERE position = 7;
            UPDATE events SET position = 7 WHERE position = -4;
            """)
        let result = try Self.verify(path)
        #expect(result.status == 65)
        #expect(result.errors == "Error: the log fails verification: reordered at position 4, stream 'user-1': version 3 comes before version 2, which is at position 7\n", "\(result)")
    }

    @Test("a row at position 0 or below: refused by the file; with its trigger dropped, verify fails (before and after a seal) and says where", arguments: [0, -7])
    func rowOutsideTheLog(position: Int) throws {
        let insert = """
            INSERT INTO events (position, stream_id, version, event_id, type, data, metadata, recorded_at, hash)
            VALUES (\(position), 'forged', 1, '0190f5a8-0000-7000-8000-00000000f00d', 'Favorited', '{"listingId":"L666"}', '{}',
                    '2026-01-01T00:00:00.000000Z', '');
            """
        for sealed in [false, true] {
            let directory = try TemporaryDirectory(); defer { directory.remove() }
            let path = try Self.makeLog(directory)
            if sealed { #expect(try Processes.run(Processes.evtool, ["seal", "--store", path]).status == 0) }
            let refused = try Processes.run(Processes.sqlite3, [path, insert])
            #expect(refused.status != 0 && refused.errors.contains("a row outside them is refused"), "\(refused)")
            #expect(try Self.verify(path).status == 0)
            try Self.tamper(path, "DROP TRIGGER events_position_range;" + insert)
            #expect(try Processes.run(Processes.sqlite3, [path, "SELECT count(*) FROM events;"]).output == "10\n")
            let result = try Self.verify(path)
            #expect(result.status == 65, "\(result)")
            #expect(result.errors == "Error: the log fails verification: inserted at position \(position): the events table holds a row at position \(position); appends only produce positions from 1 up, so it was never part of the log\n", "\(result)")
        }
    }

    @Test("a seal catches a whole stream deleted, the log truncated, a stream's last event removed")
    func seals() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try Self.makeLog(directory)
        let sealed = try Processes.run(Processes.evtool, ["seal", "--store", path])
        #expect(sealed.status == 0, "\(sealed)")
        #expect(sealed.output.hasPrefix("sealed: seal 1 at position 9 (9 events in 3 streams) "))
        #expect(try Self.verify(path).output == "OK: 9 events in 3 streams, 1 seal verified\n")
        for (sql, expected) in [
            ("DELETE FROM events WHERE stream_id = 'user-3';",
             "deleted at position 9: seal 1 recorded 9 events in 3 streams up to position 9, the log has 7 in 2"),
            ("DELETE FROM events WHERE position >= 8;",
             "deleted at position 9: seal 1 recorded 9 events in 3 streams up to position 9, the log has 7 in 3; the log ends at position 7: it was truncated"),
            ("DELETE FROM events WHERE position = 6;", "deleted at position 9: seal 1 recorded 9 events in 3 streams up to position 9, the log has 8 in 3"),
        ] {
            let copy = directory.path + "/copy.sqlite"
            try? FileManager.default.removeItem(atPath: copy)
            _ = try Processes.run(Processes.sqlite3, [path, "VACUUM INTO '\(copy)';"])
            try Self.tamper(copy, sql)
            let result = try Self.verify(copy)
            #expect(result.status == 65)
            #expect(result.errors == "Error: the log fails verification: \(expected)\n", "\(sql): \(result)")
        }
        // A seal altered to hide the deletion is itself caught.
        try Self.tamper(path, "DROP TRIGGER seals_append_only_update; UPDATE seals SET events = 8; DELETE FROM events WHERE position = 6;")
        #expect(try Self.verify(path).errors.contains("seal 1 was altered"))
    }

    @Test("bad input: not a store 66, empty store 67, newer schema 78, missing file 69")
    func badInput() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let text = directory.path + "/notes.txt"
        try String(repeating: "hello\n", count: 500).write(toFile: text, atomically: true, encoding: .utf8)
        var result = try Self.verify(text)
        #expect(result.status == 66)
        #expect(result.errors == "Error: sqlite:\(text) is not an evtool store ('\(text)' is not an SQLite database); nothing was verified\n")
        let other = directory.path + "/other.sqlite"
        _ = try Processes.run(Processes.sqlite3, [other, "CREATE TABLE customers (id INTEGER PRIMARY KEY);"])
        #expect(try Self.verify(other).status == 66)

        let empty = directory.path + "/empty.sqlite"
        _ = try SQLiteEventStore(path: empty)
        result = try Self.verify(empty)
        #expect(result.status == 67)
        #expect(result.errors == "Error: sqlite:\(empty) holds no events and no seals: nothing to verify (is this the right store?)\n")

        let newer = try Self.makeLog(directory)
        _ = try Processes.run(Processes.sqlite3, [newer, "PRAGMA user_version = 99;"])
        result = try Self.verify(newer)
        #expect(result.status == 78)
        #expect(result.errors.hasPrefix("Error: the store was written by a newer evtool: it has schema version 99, and this evtool ("))
        #expect(result.errors.hasSuffix(") supports up to schema version 8; upgrade evtool; nothing was verified\n"))

        #expect(try Self.verify(directory.path + "/missing.sqlite").status == 69)
    }
}

@Suite("Audit: export and import carry the hashes")
struct TransferHashTests {
    @Test("export writes each hash; import into a new store gives the same hashes and verifies; a changed line is refused by number")
    func roundTrip() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = try AuditTests.makeLog(directory)
        let exported = try Processes.run(Processes.evtool, ["export", "--store", path])
        #expect(exported.status == 0)
        let lines = exported.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 9 && lines.allSatisfy { $0.contains(#""hash":""#) })

        let copy = directory.path + "/copy.sqlite"
        var result = try Processes.run(Processes.evtool, ["import", "-", "--store", copy], input: exported.output)
        #expect(result.status == 0, "\(result)")
        #expect(try Processes.run(Processes.evtool, ["export", "--store", copy]).output == exported.output)
        #expect(try Processes.run(Processes.evtool, ["verify", "--store", copy]).status == 0)

        let cloud = try Processes.run(Processes.evtool, ["export", "--format", "cloudevents", "--store", path])
        #expect(cloud.output.contains(#""evtoolhash":""#))
        result = try Processes.run(Processes.evtool, ["import", "-", "--store", directory.path + "/cloud.sqlite"], input: cloud.output)
        #expect(result.status == 0, "\(result)")

        var changed = lines
        changed[6] = changed[6].replacingOccurrences(of: "user-1-3", with: "user-1-X")
        let target = directory.path + "/changed.sqlite"
        result = try Processes.run(Processes.evtool, ["import", "-", "--store", target], input: changed.joined(separator: "\n") + "\n")
        #expect(result.status == 65)
        #expect(result.errors.hasPrefix("Error: line 7: its hash "), "\(result)")
        #expect(result.errors.contains("(nothing of lines 1–9 was imported; 0 events were before them)"), "\(result)")
        #expect(try Processes.run(Processes.evtool, ["export", "--store", target]).output == "", "nothing of the refused batch is kept")
        // In batches of 3, the batches before the refused line's stay.
        result = try Processes.run(Processes.evtool, ["import", "-", "--batch", "3", "--store", target], input: changed.joined(separator: "\n") + "\n")
        #expect(result.status == 65 && result.errors.contains("(nothing of lines 7–9 was imported; 6 events were before them)"), "\(result)")
        #expect(try Processes.run(Processes.evtool, ["verify", "--store", target]).output == "OK: 6 events in 3 streams, 0 seals verified\n")
    }
}
