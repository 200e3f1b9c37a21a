import Foundation
import JSONKit
import Testing
import TestSupport

/// `evtool init --partition-size`, and the layout `init` and `stats` report (schema 18).
@Suite("evtool: a PostgreSQL store's layout at init, in stats, and archive on one table")
struct PostgresLayoutCommandTests {
    /// A CLI on a fresh schema of the test server (its URL as the environment gives it, so a
    /// new store gets the default layout), and the schema's cleanup.
    static func store(_ directory: TemporaryDirectory) throws -> (cli: CLI, cleanup: () -> Void) {
        _ = try TestStores.postgresURL()
        let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"] ?? ""
        let schema = TestStores.freshSchema()
        let cli = CLI(store: url + (url.contains("?") ? "&" : "?") + "schema=\(schema)", directory: directory.path)
        return (cli, { TestStores.dropPostgres(url: url, schema: schema) })
    }

    @Test("a new store is one table: init and stats say so, in text and JSON")
    func singleTable() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, cleanup) = try Self.store(directory); defer { cleanup() }
        var result = try cli.run("init")
        #expect(result.status == 0 && result.output.contains("; layout: single table)"), "\(result)")
        result = try cli.run("init", "--json")
        let initJSON = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any]
        #expect((initJSON?["layout"] as? [String: Any])?["name"] as? String == "single", "\(result)")
        result = try cli.run("stats")
        #expect(result.status == 0 && result.output.contains("layout     single table"), "\(result)")
        result = try cli.run("stats", "--json")
        let layout = (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["layout"] as? [String: Any]
        #expect(layout?["name"] as? String == "single" && layout?["description"] as? String == "single table" && layout?["partitions"] == nil, "\(result)")
    }

    @Test("init --partition-size N makes a partitioned store; stats says how many partitions of what size")
    func partitioned() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, cleanup) = try Self.store(directory); defer { cleanup() }
        var result = try cli.run("init", "--partition-size", "50")
        #expect(result.status == 0 && result.output.contains("; layout: partitioned by position, 2 partitions of 50 positions)"), "\(result)")
        result = try cli.run("stats", "--json")
        let layout = (try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any])?["layout"] as? [String: Any]
        #expect(layout?["name"] as? String == "partitioned" && layout?["partitions"] as? Int == 2 && layout?["partitionSize"] as? Int == 50, "\(result)")
        result = try cli.run("stats")
        #expect(result.output.contains("layout     partitioned by position, 2 partitions of 50 positions"), "\(result)")
    }

    @Test("--partition-size is refused for a store that exists with one table, for SQLite, and below 1")
    func sizeRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, cleanup) = try Self.store(directory); defer { cleanup() }
        #expect(try cli.run("init").status == 0)
        var result = try cli.run("init", "--partition-size", "50")
        #expect(result.status != 0 && result.errors.contains("exists with the single-table layout"), "\(result)")
        result = try cli.run("init", "--partition-size", "0")
        #expect(result.status == 64, "\(result)")
        let sqlite = CLI(store: "sqlite:" + directory.path + "/s.sqlite", directory: directory.path)
        result = try sqlite.run("init", "--partition-size", "50")
        #expect(result.status == 64 && result.errors.contains("--partition-size is for a PostgreSQL store"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: directory.path + "/s.sqlite"))
    }

    @Test("archive on a single-table store is refused before any file is written, naming the layout and what to do")
    func archiveRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (cli, cleanup) = try Self.store(directory); defer { cleanup() }
        for index in 0..<4 {
            #expect(try cli.run("search", "--user", "ada", "--keyword", "k\(index)", "--location", "Los Angeles").status == 0)
        }
        #expect(try cli.run("project").status == 0)
        let file = directory.path + "/a1.jsonl"
        let result = try cli.run("archive", "--before", "3", "--to", file)
        #expect(result.status != 0 && result.errors.contains("single-table layout") && result.errors.contains("--partition-size"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: file) && !FileManager.default.fileExists(atPath: file + ".partial"))
        #expect(try cli.run("verify").status == 0)
    }
}
