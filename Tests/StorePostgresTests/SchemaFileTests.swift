import Foundation
@testable import StorePostgres
import TestSupport
import Testing

/// docs/schema/postgres.sql is the schema of a new PostgreSQL store, as the store makes it.
@Suite("PostgreSQL: docs/schema/postgres.sql is a new store's schema")
struct PostgresSchemaFileTests {
    @Test("a new store's schema is docs/schema/postgres.sql (EVTOOL_WRITE_SCHEMA=1 writes it)")
    func schemaFile() throws {
        // The default layout (one table), whatever EVTOOL_TEST_PG_LAYOUT asks of other tests.
        _ = try TestStores.postgresURL()
        let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"] ?? ""
        let schema = TestStores.freshSchema()
        _ = try PostgresEventStore(url: url, schema: schema)
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let header = """
            The schema of a new evtool PostgreSQL store (schema version \(PostgresSchema.currentVersion)) in the schema `evtool`,
            as pg_dump --schema-only --no-owner --no-privileges prints it (without its version and
            session lines). Written by scripts/schema.sh; SchemaFileTests fails when a store made now
            differs. The migrations that make it: Sources/StorePostgres/Migrations/ (one file a step, V14_OptimisticReservation.swift …).
            """
        let problem = try SchemaFile.check("postgres.sql", header: header, text: SchemaFile.postgres(url: url, schema: schema))
        #expect(problem == nil, "\(problem ?? "")")
    }
}
