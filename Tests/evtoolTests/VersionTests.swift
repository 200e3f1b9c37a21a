import Foundation
import TestSupport
import Testing

/// `evtool --version` and `evtool version [--json]`, and the newer-store errors naming versions.
@Suite("evtool: version")
struct VersionTests {
    /// The package's folder (this file is Tests/evtoolTests/VersionTests.swift).
    static let packageDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    @Test("--version and version print the release, the commit, SQLite, libpq and the schema versions")
    func text() throws {
        let flag = try CLI.bare("--version")
        let command = try CLI.bare("version")
        #expect(flag.status == 0 && command.status == 0)
        #expect(flag.output == command.output)
        let short = try CLI.bare("-V")
        #expect(short.status == 0 && short.output == flag.output, "-V prints the version, as psql's does")
        let lines = flag.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 8, "\(lines)")
        #expect(lines.first?.range(of: #"^evtool [0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil, "\(lines)")
        #expect(lines.contains { $0.range(of: #"^SQLite +3\.[0-9]+\.[0-9]+$"#, options: .regularExpression) != nil }, "\(lines)")
        #expect(lines.contains { $0.range(of: #"^libpq +[0-9]+\.[0-9]+"#, options: .regularExpression) != nil }, "\(lines)")
        #expect(lines.contains("SQLite store      schema version 8"))
        #expect(lines.contains("PostgreSQL store  schema version 19"))
        #expect(lines.contains("layouts           single table (a new PostgreSQL store's default), partitioned by position (init --partition-size N)"))
        #expect(lines.contains("events            Searched 2, Favorited 1, Unfavorited 1, DetailsViewed 1, metadata 1"))
        #expect(try CLI.bare("--version", "x").status == 64)
        #expect(try CLI.bare("-V", "x").status == 64)
    }

    @Test("version --json carries the same facts; the commit is one git knows, when built from a checkout")
    func json() throws {
        let result = try CLI.bare("version", "--json")
        #expect(result.status == 0)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])
        let version = try #require(object["version"] as? String)
        #expect(try CLI.bare("version").output.hasPrefix("evtool \(version)\n"))
        let libraries = try #require(object["libraries"] as? [String: String])
        #expect(libraries["sqlite"]?.hasPrefix("3.") == true)
        #expect(try CLI.bare("version").output.contains("SQLite            \(libraries["sqlite"] ?? "?")\n"))
        #expect(libraries["libpq"]?.isEmpty == false)
        let schemas = try #require(object["schemas"] as? [String: Any])
        #expect(schemas["sqlite"] as? Int == 8 && schemas["postgres"] as? Int == 19)
        #expect((schemas["events"] as? [String: Int])?["Searched"] == 2)
        let layouts = try #require(object["postgresLayouts"] as? [String: Any])
        #expect(layouts["default"] as? String == "single" && layouts["available"] as? [String] == ["single", "partitioned"])
        let commit = try #require(object["commit"] as? String)
        let git = try Processes.run("/usr/bin/env", ["git", "-C", Self.packageDirectory, "rev-parse", "--verify", "HEAD"])
        if git.status == 0 {
            // Built from this checkout: the commit is a full hash of a commit in it (HEAD then,
            // or an ancestor of HEAD when something was committed after the build).
            #expect(commit.range(of: "^[0-9a-f]{40}$", options: .regularExpression) != nil, "\(commit)")
            let ancestor = try Processes.run("/usr/bin/env", ["git", "-C", Self.packageDirectory, "merge-base", "--is-ancestor", commit, "HEAD"])
            #expect(ancestor.status == 0, "\(commit) is not HEAD or an ancestor of it: \(ancestor)")
        } else {
            #expect(commit == "unknown")
        }
    }

    @Test("a store written by a newer evtool: the error names its schema version, this evtool's and the one it supports")
    func newerStoreSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = CLI(store: directory.path + "/store.sqlite", directory: directory.path)
        #expect(try cli.run("init").status == 0)
        _ = try Processes.run(Processes.sqlite3, [cli.store, "PRAGMA user_version = 99;"])
        let version = try #require(try CLI.bare("version").output.split(separator: "\n").first?.dropFirst("evtool ".count))
        let expected = "the store was written by a newer evtool: it has schema version 99, and this evtool (\(version)) supports up to schema version 8; upgrade evtool"
        let read = try cli.run("favorites", "--user", "ada")
        #expect(read.status == 69)
        #expect(read.errors == "Error: \(expected)\n")
        let verify = try cli.run("verify")
        #expect(verify.status == 78)
        #expect(verify.errors == "Error: \(expected); nothing was verified\n")
    }

    @Test("the same on PostgreSQL")
    func newerStorePostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        #expect(try CLI.bare("init", "--store", store).status == 0)
        let update = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", "UPDATE \(schema).schema_version SET version = 99"])
        #expect(update.status == 0, "\(update)")
        let version = try #require(try CLI.bare("version").output.split(separator: "\n").first?.dropFirst("evtool ".count))
        let read = try CLI.bare("favorites", "--user", "ada", "--store", store)
        #expect(read.status == 69)
        #expect(read.errors == "Error: the store was written by a newer evtool: it has schema version 99, and this evtool (\(version)) supports up to schema version 19; upgrade evtool\n")
        let record = try CLI.bare("unfavorite", "--user", "ada", "--listing", "L1", "--store", store)
        #expect(record.status == 69)
        #expect(record.errors.contains("schema version 99") && record.errors.contains("this evtool (\(version))"))
    }
}
