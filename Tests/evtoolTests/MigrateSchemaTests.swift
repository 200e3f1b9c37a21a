import Foundation
import Testing
import TestSupport

/// `migrate`'s `--from` and `--to` take the schema as `--store` does: the location's
/// `schema=`, else `$EVTOOL_SCHEMA`, else `evtool` (docs/how-to/postgresql.md).
@Suite("evtool: migrate into the schema $EVTOOL_SCHEMA names")
struct MigrateSchemaTests {
    @Test("EVTOOL_SCHEMA=NAME migrate --to URL copies into NAME, and the views read there with --schema NAME")
    func migrateHonoursTheSchemaVariable() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let source = "sqlite:\(directory.path)/source.sqlite"
        #expect(try Processes.run(Processes.evtool, ["favorite", "--user", "ada", "--listing", "L1", "--name", "Hamilton", "--venue", "Pantages",
                                                     "--date", "2026-12-05 19:30:00", "--category", "Arts & Theatre", "--store", source]).status == 0)
        let migrated = try Processes.run(Processes.evtool, ["migrate", "--from", source, "--to", url, "--quiet"], environment: ["EVTOOL_SCHEMA": schema])
        #expect(migrated.status == 0 && migrated.output.contains("schema=\(schema)"), "\(migrated)")
        let read = try Processes.run(Processes.evtool, ["favorites", "--user", "ada", "--store", url, "--schema", schema])
        #expect(read.status == 0 && read.output.contains("Hamilton"), "the events are in the schema the variable named: \(read)")
        let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", url, "--schema", schema])
        #expect(stats.status == 0 && stats.output.contains(#""events":1"#), "\(stats)")
    }
}
