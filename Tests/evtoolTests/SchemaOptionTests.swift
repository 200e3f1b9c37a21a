import Foundation
import TestSupport
import Testing

/// `--schema NAME` beside `--store`: the same location pastes into `psql`, the schema named apart.
@Suite("evtool --schema and $EVTOOL_SCHEMA")
struct SchemaOptionTests {
    @Test("--schema and $EVTOOL_SCHEMA pick the PostgreSQL schema; a conflict, or --schema for an SQLite file, is a usage error")
    func schemaOption() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        var result = try Processes.run(Processes.evtool, ["search", "--user", "ada", "--keyword", "jazz", "--here", "34.02,-118.28", "--store", url, "--schema", schema])
        #expect(result.status == 0, "\(result)")
        result = try Processes.run(Processes.evtool, ["history", "--user", "ada", "--store", url + "?schema=" + schema])
        #expect(result.status == 0 && result.output.contains("searched \"jazz\""), "\(result)")
        result = try Processes.run("/usr/bin/env", ["EVTOOL_SCHEMA=\(schema)", Processes.evtool, "stats", "--store", url, "--json"])
        #expect(result.status == 0 && result.output.contains(#""events":1,"#), "\(result)")
        result = try Processes.run(Processes.evtool, ["stats", "--store", url + "?schema=" + schema, "--schema", "other"])
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.hasPrefix("Error: --schema 'other' and the store's 'schema=\(schema)' name different schemas; give one"), "\(result)")
        result = try Processes.run(Processes.evtool, ["stats", "--store", "sqlite:/tmp/none.sqlite", "--schema", schema])
        #expect(result.status == 64, "\(result)")
        #expect(result.errors.hasPrefix("Error: --schema '\(schema)' names a PostgreSQL schema, but the store sqlite:/tmp/none.sqlite is an SQLite file"), "\(result)")
        #expect(try Processes.run(Processes.evtool, ["stats", "--help"]).output.contains("--schema NAME"))
    }

    @Test("a libpq service name (pg_service.conf) is a store location; an undefined one is named, not taken for localhost:5432")
    func serviceName() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let components = try #require(URLComponents(string: url))
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let file = directory.path + "/pg_service.conf"
        try "[evtooltest]\nhost=\(components.host ?? "127.0.0.1")\nport=\(components.port ?? 5432)\nuser=\(components.user ?? "postgres")\ndbname=\(components.path.dropFirst())\n"
            .write(toFile: file, atomically: true, encoding: .utf8)
        let environment = ["PGSERVICEFILE": file]
        var result = try Processes.run(Processes.evtool, ["favorite", "--user", "ada", "--listing", "L1", "--name", "X", "--venue", "V", "--date", "2026-12-05 19:30:00",
                                                          "--category", "Music", "--store", "service=evtooltest", "--schema", schema], environment: environment)
        #expect(result.status == 0, "\(result)")
        result = try Processes.run(Processes.evtool, ["favorites", "--user", "ada", "--store", url + "?schema=" + schema])
        #expect(result.status == 0 && result.output.contains("L1"), "\(result)")
        result = try Processes.run(Processes.evtool, ["stats", "--store", "service=nosuch"], environment: environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.errors.contains(#"definition of service "nosuch" not found"#) && !result.errors.contains("localhost:5432"), "\(result)")
    }
}
