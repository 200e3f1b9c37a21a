import EventLog
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
        #expect(result.output.hasPrefix("erased 3 events of user 'ada' (recorded as UserErased at position 6); views rebuilt; file rewritten and WAL emptied"), "\(result)")

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
        #expect(result.output == "OK: 6 events in 3 streams, 1 seal verified (3 erased, accepted by their kept digests)\n")
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
        var result = try cli.run("forget", "--by", "tester", "--user", "nobody", "--reason", "test")
        #expect(result.status == 65)
        #expect(result.errors == "Error: invalid input: stream 'nobody' has no events to erase\n")
        result = try cli.run("forget", "--by", "tester", "--user", "bob")
        #expect(result.status == 64)
    }
}

/// After `forget`, and with event types the runner does not know, users are not locked out;
/// a `forget` refused for lack of privilege leaves nothing behind; on SQLite files and PostgreSQL.
@Suite("Audit: erasure does not lock users out, and fails whole")
struct ErasureAftermathTests {
    /// A store on each kind: an SQLite file, a fresh PostgreSQL schema.
    struct Store {
        let cli: CLI
        let name: String
        let cleanup: () -> Void
    }

    static func stores(_ directory: TemporaryDirectory) throws -> [Store] {
        let postgres = try TestStores.freshPostgresStore()
        return [
            Store(cli: CLI(store: "sqlite:\(directory.path)/main.sqlite", directory: directory.path), name: "SQLite", cleanup: {}),
            Store(cli: CLI(store: postgres.url, directory: directory.path), name: "PostgreSQL", cleanup: postgres.drop),
        ]
    }

    static let summary = #"{"name":"Lakers vs Celtics","venue":"Crypto.com Arena","localDateTime":"2026-12-09 19:00:00","category":"Sports"}"#

    @Test("after forget: search, view, favorite and unfavorite work; an erased favorite is no favorite; the view agrees with the decider")
    func commandsAfterForget() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        for store in try Self.stores(directory) {
            defer { store.cleanup() }
            let cli = store.cli
            let details = try cli.file("details.json", Samples.details)
            #expect(try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-", input: Self.summary).status == 0, "\(store.name)")
            #expect(try cli.run("view", "--user", "ada", "--listing", "L7", "--details", details).status == 0, "\(store.name)")
            #expect(try cli.run("forget", "--user", "ada", "--reason", "GDPR #4", "--by", "alice").status == 0, "\(store.name)")

            var result = try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "Chicago")
            #expect(result.status == 0 && result.output.hasPrefix("recorded Searched for ada: version 4"), "\(store.name): \(result)")
            result = try cli.run("view", "--user", "ada", "--listing", "L7", "--details", details)
            #expect(result.status == 0 && result.output.hasPrefix("recorded DetailsViewed for ada: version 5"), "\(store.name): \(result)")
            // The erased favorite is no longer known: not a favorite, and favoriting it records anew.
            #expect(try cli.run("favorites", "--user", "ada").output == "No favorites\n", "\(store.name)")
            result = try cli.run("unfavorite", "--user", "ada", "--listing", "L8")
            #expect(result.status == 0 && result.output == "listing 'L8' is not a favorite; nothing recorded\n", "\(store.name): \(result)")
            result = try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-", input: Self.summary)
            #expect(result.status == 0 && result.output.hasPrefix("recorded Favorited for ada: version 6"), "\(store.name): \(result)")
            #expect(try cli.run("favorites", "--user", "ada").output.contains("L8       Lakers vs Celtics"), "\(store.name)")
            result = try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-", input: Self.summary)
            #expect(result.output == "listing 'L8' is already a favorite; nothing recorded\n", "\(store.name): \(result)")
            // The views kept by the commands equal a rebuild, and the log still verifies.
            let before = try cli.run("favorites", "--user", "ada", "--json").output
            #expect(try cli.run("rebuild").status == 0)
            #expect(try cli.run("favorites", "--user", "ada", "--json").output == before, "\(store.name)")
            result = try cli.run("verify")
            #expect(result.status == 0 && result.output.contains("(2 erased, accepted by their kept digests)"), "\(store.name): \(result)")
        }
    }

    @Test("an event type the runner does not know, written with evtool append, does not lock the user out")
    func unknownTypeAppended() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        for store in try Self.stores(directory) {
            defer { store.cleanup() }
            let cli = store.cli
            #expect(try cli.run("favorite", "--user", "bo", "--listing", "L8", "--summary", "-", input: Self.summary).status == 0)
            var result = try cli.run("append", "--stream", "bo", "--type", "FavoritesCleared", "--data", #"{"listingID":"L8"}"#)
            #expect(result.status == 0, "\(store.name): \(result)")
            for arguments in [["search", "--user", "bo", "--keyword", "jazz", "--location", "Chicago"],
                              ["unfavorite", "--user", "bo", "--listing", "L8"]] {
                result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
                #expect(result.status == 0 && result.output.hasPrefix("recorded "), "\(store.name) \(arguments[0]): \(result)")
            }
        }
    }

    @Test("SQLite: forget on a file this user may only read exits 77 naming it, and changes nothing")
    func forgetWithoutWriteAccessOnSQLite() throws {
        try #require(getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
                     "needs root and setpriv to run evtool as user nobody (root ignores file permissions)")
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        let path = directory.path + "/store.sqlite"
        let cli = CLI(store: "sqlite:\(path)", directory: directory.path)
        #expect(try cli.run("favorite", "--user", "ada", "--listing", "L8", "--summary", "-", input: Self.summary).status == 0)
        #expect(try cli.run("project").status == 0)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let before = StorePathDigest.of(path)
        let result = try Processes.run("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", Processes.evtool,
                                                            "forget", "--by", "tester", "--user", "ada", "--reason", "GDPR #5", "--store", path])
        #expect(result.status == 77, "\(result)")
        #expect(result.errors.hasPrefix("Error: permission denied: ") && result.errors.contains("'\(path)'"), "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result)")
        #expect(StorePathDigest.of(path) == before, "the file changed")
        #expect(try cli.run("history", "--user", "ada").output.contains("favorited \"Lakers vs Celtics\""))
        #expect(try cli.run("export").output.contains(#""stream":"$erasures""#) == false)
    }

    @Test("PostgreSQL: forget as the app role (may append, not update) exits 77 naming the privilege and leaves no UserErased event")
    func forgetWithoutPrivilegeOnPostgres() throws {
        let log = try PostgresAuditTests.makeLog(); defer { log.cleanup() }
        let suffix = String(log.schema.dropFirst(2).prefix(8))
        let (owner, app, auditor) = ("owner_\(suffix)", "app_\(suffix)", "auditor_\(suffix)")
        defer {
            for role in [app, auditor, owner] {
                _ = try? PostgresAuditTests.psql(log.url, "DROP OWNED BY \(role) CASCADE; DROP ROLE IF EXISTS \(role);")
            }
        }
        let sql = try Processes.run(Processes.evtool, ["roles", "sql", "--owner", owner, "--app", app, "--auditor", auditor, "--schema", log.schema])
        #expect(sql.status == 0, "\(sql)")
        #expect(try Processes.run(Processes.psql, [log.url, "-X", "-q", "-v", "ON_ERROR_STOP=1"], input: sql.output).status == 0)
        func store(_ role: String) -> String {
            log.url.replacingOccurrences(of: "://postgres@", with: "://\(role)@") + (log.url.contains("?") ? "&" : "?") + "schema=\(log.schema)"
        }
        let head = try log.store.headPosition()
        var result = try Processes.run(Processes.evtool, ["forget", "--by", "tester", "--user", "user-1", "--reason", "GDPR #6", "--store", store(app)])
        #expect(result.status == 77, "\(result)")
        #expect(result.errors.hasPrefix("Error: permission denied: forget needs INSERT on \(log.schema).erasures and UPDATE on \(log.schema).events"), "\(result)")
        #expect(result.errors.contains("permission denied for table erasures"), "\(result)")
        #expect(result.errors.split(separator: "\n").count == 1, "\(result)")
        // Nothing left behind: no UserErased event, no erasure row, the payloads as they were.
        #expect(try log.store.headPosition() == head)
        #expect(try log.store.read(stream: "$erasures").isEmpty)
        #expect(try log.store.read(stream: "user-1").allSatisfy { !Erasure.isTombstone($0) })
        #expect(try PostgresAuditTests.psql(log.url, "SELECT count(*) FROM \(log.schema).erasures").output == "0\n")
        // Other refused privileges have the same code: the auditor may not record, the app may not seal.
        result = try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--location", "Chicago", "--store", store(auditor)])
        #expect(result.status == 77 && result.errors.hasPrefix("Error: permission denied: the role may not do this: permission denied for "), "\(result)")
        result = try Processes.run(Processes.evtool, ["seal", "--store", store(app)])
        #expect(result.status == 77 && result.errors.contains("permission denied for table seals"), "\(result)")
        #expect(try PostgresAuditTests.psql(log.url, "SELECT count(*) FROM \(log.schema).seals").output == "0\n")
        // The owner may: the erasure happens, once.
        result = try Processes.run(Processes.evtool, ["forget", "--by", "tester", "--user", "user-1", "--reason", "GDPR #6", "--store", store(owner)])
        #expect(result.status == 0 && result.output.hasPrefix("erased 4 events of user 'user-1' (recorded as UserErased at position "), "\(result)")
        #expect(try log.store.read(stream: "$erasures").count == 1)
    }
}

/// A digest of a store file and its WAL, to check that a refused command changed neither.
enum StorePathDigest {
    static func of(_ path: String) -> String {
        var bytes = FileManager.default.contents(atPath: path) ?? Data("missing".utf8)
        bytes.append(FileManager.default.contents(atPath: path + "-wal") ?? Data())
        return SHA256Hasher.digest(bytes).hexString
    }
}
