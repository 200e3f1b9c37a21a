import Foundation
import Testing
import TestSupport

/// Bad input is refused before anything is touched: no store created by a rejected command,
/// no file replaced by an output that does not belong there, no argument silently rewritten.
@Suite("evtool: a refused command leaves every file as it was")
struct NothingHalfDoneTests {
    static func folder() throws -> TemporaryDirectory { try TemporaryDirectory() }

    static func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    static func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// An SQLite store in `directory` with one search of ada's, its WAL checkpointed, and its bytes.
    static func storeWithOneSearch(_ directory: TemporaryDirectory) throws -> (cli: CLI, path: String, bytes: Data) {
        let path = directory.path + "/evtool.sqlite"
        let cli = CLI(store: "sqlite:" + path, directory: directory.path)
        try #require(try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "LA").status == 0)
        _ = try Processes.run(Processes.sqlite3, [path, "PRAGMA wal_checkpoint(TRUNCATE);"])
        return (cli, path, try #require(bytes(path)))
    }

    @Test("a rejected recording or append creates no SQLite file", arguments: [
        ["search", "--user", "ada", "--keyword", "  ", "--here", "1,2"],
        ["search", "--user", "", "--keyword", "jazz", "--location", "LA"],
        ["search", "--user", "ada", "--keyword", "jazz", "--here", "91,0"],
        ["search", "--user", "ada", "--keyword", "jazz", "--here", "1,2", "--distance", "0"],
        ["search", "--user", "   ", "--keyword", "jazz", "--location", "LA"],
        ["search", "--user", " ada", "--keyword", "jazz", "--location", "LA"],
        ["search", "--user", "ada", "--keyword", "jazz", "--location", "LA", "--request-id", "  "],
        ["unfavorite", "--user", "ada", "--listing", ""],
        ["append", "--stream", "", "--type", "T", "--data", "{}"],
        ["append", "--stream", "s", "--type", "T", "--data", "{bad"],
    ])
    func rejectedCreatesNoStore(arguments: [String]) throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        let result = try Processes.run(Processes.evtool, arguments + ["--store", "sqlite:" + path])
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.hasPrefix("Error: "), "\(result)")
        #expect(!Self.exists(path) && !Self.exists(path + "-wal"), "a rejected command created the store: \(result)")
    }

    @Test("an id that is only spaces, or begins or ends with one, is refused naming the field and the rule")
    func paddedIdentifiers() throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let store = "sqlite:" + directory.path + "/store.sqlite"
        for (user, rule) in [("   ", "user id must not be only spaces"), (" ada", "user id must not begin or end with a space"),
                             ("ada\u{A0}", "user id must not begin or end with a space")] {
            let result = try Processes.run(Processes.evtool, ["search", "--user", user, "--keyword", "jazz", "--location", "LA", "--store", store])
            #expect(result.status == 65 && result.errors.contains(rule), "\(user): \(result)")
        }
        let inner = try Processes.run(Processes.evtool, ["search", "--user", "ada lovelace", "--keyword", "jazz", "--location", "LA", "--store", store])
        #expect(inner.status == 0, "a space inside an id is fine: \(inner)")
        // Reads hold a user nobody recorded to the same rule as writes.
        for (user, rule) in [("   ", "user id must not be only spaces"), ("\u{3000}", "user id must not be only spaces"), ("ada ", "user id must not begin or end with a space")] {
            for read in [["favorites", "--user", user], ["recent", "--user", user], ["viewed", "--user", user], ["history", "--user", user]] {
                let result = try Processes.run(Processes.evtool, read + ["--store", store])
                #expect(result.status == 65 && result.errors.contains(rule), "\(read): \(result)")
            }
        }
        // A stream recorded under such an id before the rule (here by a raw append) can still be
        // read, reported on and erased under the id as typed: only new records meet the rule.
        let data = #"{"category":"All","distance":10,"keyword":"jazz","location":{"custom":{"text":"LA"}},"schemaVersion":2,"units":"miles"}"#
        let old = try Processes.run(Processes.evtool, ["append", "--stream", " old", "--type", "Searched", "--data", data, "--store", store])
        try #require(old.status == 0, "\(old)")
        // A favorite recorded under a padded listing id before the rule can still be removed.
        let padded = #"{"listingID":"L3 ","schemaVersion":1,"summary":{"category":"Music","localDateTime":"2026-12-05 19:30:00","name":"N","venue":"V"}}"#
        try #require(try Processes.run(Processes.evtool, ["append", "--stream", "ada lovelace", "--type", "Favorited", "--data", padded, "--store", store]).status == 0)
        let removed = try Processes.run(Processes.evtool, ["unfavorite", "--user", "ada lovelace", "--listing", "L3 ", "--store", store])
        #expect(removed.status == 0 && removed.output.hasPrefix("recorded Unfavorited"), "\(removed)")
        let refavorited = try Processes.run(Processes.evtool, ["favorite", "--user", "ada lovelace", "--listing", "L3 ", "--name", "N", "--venue", "V",
                                                               "--date", "2026-12-05 19:30:00", "--category", "Music", "--store", store])
        #expect(refavorited.status == 65 && refavorited.errors.contains("listing id must not begin or end with a space"), "\(refavorited)")
        for read in [["history", "--user", " old"], ["recent", "--user", " old"], ["report", "--user", " old"]] {
            let result = try Processes.run(Processes.evtool, read + ["--store", store])
            #expect(result.status == 0 && result.output.contains("jazz"), "\(read): \(result)")
        }
        let erased = try Processes.run(Processes.evtool, ["forget", "--user", " old", "--reason", "ticket 7\nthe user asked by mail", "--by", "ops", "--store", store])
        #expect(erased.status == 0 && erased.output.contains("erased 1 event of user ' old'"), "\(erased)")
    }

    @Test("an argument that is not UTF-8 is refused (exit 64) naming it and its option, and nothing is created")
    func argumentNotUTF8() throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        // Swift's strings cannot hold the bytes: the shell passes them.
        let user = try Processes.run("/bin/sh", ["-c", #"exec "$0" search --user "$(printf 'ad\377a')" --keyword jazz --location LA --store "$1""#,
                                                 Processes.evtool, "sqlite:" + path])
        #expect(user.status == 64, "\(user)")
        #expect(user.errors.hasPrefix(#"Error: the argument 'ad\xFFa' (the value of '--user') is not valid UTF-8"#), "\(user)")
        #expect(!Self.exists(path), "\(user)")
        let inline = try Processes.run("/bin/sh", ["-c", #"exec "$0" search --user ada --keyword "$(printf 'ja\303')" --location LA --store "$1""#,
                                                   Processes.evtool, "sqlite:" + path])
        #expect(inline.status == 64 && inline.errors.contains(#"'ja\xC3' (the value of '--keyword')"#), "\(inline)")
        let storePath = try Processes.run("/bin/sh", ["-c", #"cd "$1" && exec "$0" stats --store="$(printf 'st\377.sqlite')""#, Processes.evtool, directory.path])
        #expect(storePath.status == 64 && storePath.errors.contains(#"'--store=st\xFF.sqlite' (the value of '--store')"#), "\(storePath)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("report --out and seal --checkpoint-out never replace a store, a key or a folder; an earlier report or checkpoint is replaced whole")
    func outputsNeverReplaceOtherFiles() throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let (cli, path, store) = try Self.storeWithOneSearch(directory)
        let key = try cli.file("key.pem", "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n")
        for target in [path, key, directory.path] {
            let report = try cli.run("report", "--user", "ada", "--out", target)
            #expect(report.status == 74 && report.errors.contains("will not write the report to '\(target)'") && report.errors.contains("nothing was written"), "\(report)")
            let seal = try cli.run("seal", "--checkpoint-out", target)
            #expect(seal.status == 74 && seal.errors.contains("will not write the checkpoint to '\(target)'"), "\(seal)")
        }
        #expect(try cli.run("report", "--user", "ada", "--out", path).errors.contains("it is an SQLite database"))
        let seals = try cli.run("seal", "--list")
        #expect(seals.status == 0 && !seals.output.contains("seal 1"), "a refused --checkpoint-out sealed nothing: \(seals)")
        #expect(Self.bytes(path) == store, "the store's file changed")
        #expect(try cli.run("stats").status == 0)
        let missingFolder = try cli.run("report", "--user", "ada", "--out", directory.path + "/no/such/report.html")
        #expect(missingFolder.status != 0 && missingFolder.errors.contains("the folder '\(directory.path)/no/such' does not exist"), "\(missingFolder)")
        #expect(!Self.exists(directory.path + "/no"))

        let page = directory.path + "/report.html"
        #expect(try cli.run("report", "--user", "ada", "--out", page).status == 0)
        try #require(try cli.run("search", "--user", "ada", "--keyword", "opera", "--location", "LA").status == 0)
        try #require(chmod(page, 0o600) == 0)
        let again = try cli.run("report", "--user", "ada", "--out", page)
        #expect(again.status == 0, "an earlier report is replaced: \(again)")
        let mode = (try FileManager.default.attributesOfItem(atPath: page)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600, "a report kept private stays private: \(String(mode ?? 0, radix: 8))")
        #expect(String(decoding: try #require(Self.bytes(page)), as: UTF8.self).contains("opera"))
        let checkpoint = directory.path + "/latest.checkpoint"
        #expect(try cli.run("seal", "--checkpoint-out", checkpoint).status == 0)
        try #require(try cli.run("search", "--user", "ada", "--keyword", "ballet", "--location", "LA").status == 0)
        let second = try cli.run("seal", "--checkpoint-out", checkpoint)
        #expect(second.status == 0, "an earlier checkpoint is replaced: \(second)")
        #expect(String(decoding: try #require(Self.bytes(checkpoint)), as: UTF8.self).hasPrefix("evtool\n3\n"))
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty, "temporary files left: \(left)")
    }

    @Test("token create appends only to a tokens file: a store or any other file is refused and left as it was")
    func tokensOnlyIntoATokensFile() throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let (cli, path, store) = try Self.storeWithOneSearch(directory)
        let refused = try CLI.bare("token", "create", "--role", "app", "--tokens", path)
        #expect(refused.status == 65 && refused.errors.contains("is not a tokens file") && refused.errors.contains("nothing was added"), "\(refused)")
        #expect(refused.output.isEmpty, "no token is shown for a file that did not take it: \(refused)")
        #expect(Self.bytes(path) == store)
        let notes = try cli.file("notes.txt", "remember the milk\n")
        #expect(try CLI.bare("token", "create", "--role", "app", "--tokens", notes).status != 0)
        #expect(Self.bytes(notes) == Data("remember the milk\n".utf8))
        // A tokens file edited by hand without a final newline still takes a new line of its own.
        let tokens = try cli.file("tokens.txt", "# ours\napp \(String(repeating: "ab", count: 32)) old")
        let made = try CLI.bare("token", "create", "--role", "auditor", "--tokens", tokens, "--name", "audit")
        #expect(made.status == 0, "\(made)")
        let lines = String(decoding: try #require(Self.bytes(tokens)), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3 && lines[1].hasSuffix(" old") && lines[2].hasPrefix("auditor ") && lines[2].hasSuffix(" audit"), "\(lines)")
    }

    @Test("a time zone offset beyond ±23:59 is refused, not taken as a shift of the day", arguments: ["+25:00", "+24:00", "+99:99", "+00:60", "-24:00"])
    func impossibleOffsets(offset: String) throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let store = "sqlite:" + directory.path + "/store.sqlite"
        let recorded = try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--location", "LA",
                                                             "--occurred-at", "2026-03-01T10:00:00" + offset, "--store", store])
        #expect(recorded.status == 64 && recorded.errors.contains("2026-03-01T10:00:00" + offset), "\(recorded)")
        #expect(!Self.exists(directory.path + "/store.sqlite"))
        let fine = try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--location", "LA",
                                                         "--occurred-at", "2026-03-01T10:00:00+14:00", "--store", store])
        #expect(fine.status == 0, "\(fine)")
    }

    @Test("a store whose layout clashes with evtool's (an SQLite file claiming an older schema, a PostgreSQL schema with a table named events) is refused without evtool's SQL in the message")
    func clashesShowNoSQL() throws {
        let directory = try Self.folder(); defer { directory.remove() }
        let path = directory.path + "/old.sqlite"
        let cli = CLI(store: "sqlite:" + path, directory: directory.path)
        try #require(try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "LA").status == 0)
        try #require(try Processes.run(Processes.sqlite3, [path, "PRAGMA user_version = 0;"]).status == 0)
        let sqlite = try cli.run("init")
        #expect(sqlite.status != 0 && sqlite.errors.hasPrefix("Error: "), "\(sqlite)")
        #expect(!sqlite.errors.contains("CREATE") && !sqlite.errors.contains("(in: "), "\(sqlite)")

        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let made = try Processes.run(Processes.psql, [url, "-v", "ON_ERROR_STOP=1", "-qc", "CREATE SCHEMA \(schema); CREATE TABLE \(schema).events (id int);"])
        try #require(made.status == 0, "\(made)")
        let postgres = try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--location", "LA",
                                                             "--store", url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"])
        #expect(postgres.status != 0 && postgres.errors.hasPrefix("Error: "), "\(postgres)")
        #expect(!postgres.errors.contains("CREATE") && !postgres.errors.contains(" in: "), "\(postgres)")
        #expect(postgres.status == 65 && postgres.errors.contains("schema '\(schema)' holds a table of something else ('events') and no evtool store"), "\(postgres)")
        let tables = try Processes.run(Processes.psql, [url, "-Atqc", "SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema)'"])
        #expect(tables.output.trimmingCharacters(in: .whitespacesAndNewlines) == "1", "nothing was added beside the foreign table: \(tables)")
    }
}
