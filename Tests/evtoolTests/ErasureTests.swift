import Foundation
import TestSupport
import Testing

/// `evtool forget` on SQLite: the user's personal data is unreadable through every path, the
/// log still verifies, other users are untouched.
@Suite("Audit: erasure on SQLite")
struct ErasureTests {
    /// What ada typed, chose and sent, which must be gone after the erasure.
    static let personal = ["Hamilton", "Lakers", "Los Angeles", "ios-app/4.2", "Pantages"]

    @Test("forget: views, history, export, raw SQL and the file's bytes hold nothing of the user; verify OK")
    func forget() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/main.sqlite"
        let cli = CLI(store: "sqlite:\(path)", directory: directory.path)
        var result = try cli.run("search", "--user", "ada", "--keyword", "Hamilton", "--category", "Arts & Theatre",
                                 "--location", "Los Angeles", "--request-id", "r-1", "--source", "ios-app/4.2")
        #expect(result.status == 0, "\(result)")
        result = try cli.run("view", "--user", "ada", "--listing", "L7", "--details", try cli.file("details.json", Samples.details))
        #expect(result.status == 0, "\(result)")
        result = try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-",
                             input: #"{"name":"Lakers vs Celtics","venue":"Crypto.com Arena","localDateTime":"2026-12-09 19:00:00","category":"Sports"}"#)
        #expect(result.status == 0, "\(result)")
        #expect(try cli.run("search", "--user", "bob", "--keyword", "jazz", "--location", "Chicago").status == 0)
        #expect(try cli.run("project").status == 0)
        #expect(try cli.run("seal").status == 0)
        #expect(try cli.run("favorites", "--user", "ada").output.contains("Lakers"))

        result = try cli.run("forget", "--user", "ada", "--reason", "GDPR request #1", "--by", "alice")
        #expect(result.status == 0, "\(result)")
        #expect(result.output.hasPrefix("erased 3 events of user 'ada' (recorded as UserErased at position 5); views rebuilt; file rewritten and WAL emptied"), "\(result)")

        // Views, history and export.
        var seen = ""
        for arguments in [["favorites", "--user", "ada", "--json"], ["recent", "--user", "ada", "--json"], ["viewed", "--user", "ada", "--json"],
                          ["details", "--listing", "L7", "--json"], ["history", "--user", "ada", "--json"], ["history", "--user", "ada"], ["export"]] {
            let read = try Processes.run(Processes.evtool, arguments + ["--store", path])
            #expect(read.status == 0, "\(arguments): \(read)")
            seen += read.output
        }
        for word in Self.personal { #expect(!seen.contains(word), "'\(word)' is still readable: \(seen)") }
        #expect(seen.contains(#""data":{"erased":true},"metadata":{"erased":true}"#))
        #expect(seen.contains(#""type":"UserErased""#) && seen.contains(#""reason":"GDPR request #1","by":"alice""#))

        // Other users untouched.
        #expect(try cli.run("recent", "--user", "bob", "--json").output.contains(#""keyword":"jazz""#))

        // Raw SQL on every table, and the file's bytes.
        let dump = try Processes.run(Processes.sqlite3, [path, ".dump"])
        #expect(dump.status == 0)
        #expect(dump.output.contains("jazz"))
        for word in Self.personal { #expect(!dump.output.contains(word), "'\(word)' in the SQL dump") }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        if FileManager.default.fileExists(atPath: path + "-wal") { bytes.append(try Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) }
        for word in Self.personal { #expect(bytes.range(of: Data(word.utf8)) == nil, "'\(word)' in the file's bytes") }

        // The log still verifies, seal included; forging a tombstone elsewhere does not.
        result = try cli.run("verify")
        #expect(result.status == 0, "\(result)")
        #expect(result.output == "OK: 5 events in 3 streams, 1 seals verified (3 erased, accepted by their kept digests)\n")
        let forged = try Processes.run(Processes.sqlite3, [path, """
            DROP TRIGGER events_append_only_update;
            UPDATE events SET data = '{"erased":true}', metadata = '{"erased":true}' WHERE stream_id = 'bob';
            """])
        #expect(forged.status == 0, "\(forged.errors)")
        result = try cli.run("verify")
        #expect(result.status == 65)
        #expect(result.errors.contains("modified at position 4, stream 'bob': version 1 was replaced with a tombstone that no UserErased event in the log covers"), "\(result)")
    }

    @Test("forget refuses a user with no events, and needs a reason")
    func refusals() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/main.sqlite", directory: directory.path)
        #expect(try cli.run("search", "--user", "bob", "--keyword", "jazz", "--location", "Chicago").status == 0)
        var result = try cli.run("forget", "--user", "nobody", "--reason", "test")
        #expect(result.status == 65)
        #expect(result.errors == "Error: invalid input: stream 'nobody' has no events to erase\n")
        result = try cli.run("forget", "--user", "bob")
        #expect(result.status == 64)
    }
}
