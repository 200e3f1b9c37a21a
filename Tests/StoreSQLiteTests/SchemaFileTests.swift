import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// docs/schema/sqlite.sql is the schema of a new SQLite store, as the store makes it.
@Suite("SQLite: docs/schema/sqlite.sql is a new store's schema")
struct SQLiteSchemaFileTests {
    @Test("a new store's schema is docs/schema/sqlite.sql (EVTOOL_WRITE_SCHEMA=1 writes it)")
    func schemaFile() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/new.sqlite"
        _ = try SQLiteEventStore(path: path)
        let header = """
            The schema of a new evtool SQLite store (schema version \(SQLiteSchema.currentVersion)), as SQLite keeps it
            (sqlite_master, in the order it was made). Written by scripts/schema.sh; SchemaFileTests
            fails when a store made now differs. The steps that make it: Sources/StoreSQLite/Migrations/ (one file a step), listed in SQLiteSchema.swift.
            """
        let problem = try SchemaFile.check("sqlite.sql", header: header, text: SchemaFile.sqlite(path: path))
        #expect(problem == nil, "\(problem ?? "")")
    }
}
