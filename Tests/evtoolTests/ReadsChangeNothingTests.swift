import Foundation
import Testing
import TestSupport

/// A read never changes the store, an upgrade of its schema included: a store at an older
/// schema version is refused by reading commands (naming both versions and `evtool init`),
/// left as it was, and upgraded by `evtool init`.
@Suite("evtool: reads leave an older store as it is")
struct ReadsChangeNothingTests {
    static let reads: [[String]] = [["favorites", "--user", "ada"], ["history", "--user", "ada"], ["stats"], ["verify"], ["log"], ["export"]]

    static func record(_ cli: CLI) throws {
        let result = try cli.run("search", "--user", "ada", "--keyword", "jazz", "--location", "Los Angeles")
        try #require(result.status == 0, "\(result)")
    }

    static func expectRefusedThenUpgraded(_ cli: CLI, found: Int, unchanged: () throws -> String) throws {
        let before = try unchanged()
        for read in reads {
            let result = try Processes.run(Processes.evtool, read + ["--store", cli.store])
            #expect(result.status == 69, "\(read): \(result)")
            #expect(result.errors.hasPrefix("Error: ") && result.errors.contains("schema version \(found)")
                    && result.errors.contains("evtool init"), "\(read): \(result)")
        }
        #expect(try unchanged() == before, "a read changed the store")
        let upgraded = try cli.run("init")
        #expect(upgraded.status == 0, "\(upgraded)")
        let favorites = try cli.run("history", "--user", "ada")
        #expect(favorites.status == 0 && favorites.output.contains("jazz"), "\(favorites)")
    }

    @Test("SQLite: a file at schema version 4 is refused by every read, unchanged byte for byte, upgraded by init")
    func sqlite() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/store.sqlite"
        let cli = CLI(store: "sqlite:" + path, directory: directory.path)
        try Self.record(cli)
        // What version 4 had: no trigger refusing positions below 1.
        let downgrade = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER events_position_range; PRAGMA user_version = 4; PRAGMA wal_checkpoint(TRUNCATE);"])
        try #require(downgrade.status == 0, "\(downgrade)")
        try Self.expectRefusedThenUpgraded(cli, found: 4) {
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
            let bytes = try files.map { try Data(contentsOf: URL(fileURLWithPath: directory.path + "/" + $0)).base64EncodedString() }
            return zip(files, bytes).map { "\($0) \($1)" }.joined(separator: "\n")
        }
        let version = try Processes.run(Processes.sqlite3, [path, "PRAGMA user_version;"])
        #expect(version.output.trimmingCharacters(in: .whitespacesAndNewlines) != "4", "init upgraded it: \(version)")
    }

    @Test("PostgreSQL: a schema at version 4 is refused by every read, its version row unchanged, upgraded by init")
    func postgres() throws {
        // Partitioned, as every store before schema 18 was: init runs steps 5–18 again over
        // what they made, and step 10 (the partitions) only ever ran on a partitioned log.
        let url = try TestStores.partitionedPostgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema, directory: directory.path)
        try Self.record(cli)
        // Version 5 added append_one; its migration replaces a leftover one, so init can run it again.
        let downgrade = try Processes.run(Processes.psql, [url, "-v", "ON_ERROR_STOP=1", "-qc", "UPDATE \"\(schema)\".schema_version SET version = 4"])
        try #require(downgrade.status == 0, "\(downgrade)")
        let versionRow = { try Processes.run(Processes.psql, [url, "-Atc", "SELECT version FROM \"\(schema)\".schema_version"]).output }
        try Self.expectRefusedThenUpgraded(cli, found: 4) { try versionRow() }
        #expect(try versionRow().trimmingCharacters(in: .whitespacesAndNewlines) != "4", "init upgraded it")
    }
}
