import EventLog
import Foundation
@testable import StorePostgres
import TestSupport
import Testing

/// Schema 18: a new store's events table is one table with the event id unique on it (the
/// single-table layout); partitions by position are chosen at install (docs/explanation/scale.md
/// "Layouts"); a store with events keeps the layout it has.
@Suite("PostgreSQL: the single-table and partitioned layouts (schema 18)")
struct PostgresLayoutTests {
    /// The test server's URL without the layout EVTOOL_TEST_PG_LAYOUT may ask for.
    static func plainURL() throws -> String {
        _ = try TestDatabase.url()
        return ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"] ?? ""
    }

    static func with(_ url: String, _ setting: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-c%20" + setting.replacingOccurrences(of: "=", with: "%3D")
    }

    /// A new store opened with `url`, dropped after `body`.
    static func withStore<T>(url: String, partitionSize: Int64? = nil, _ body: (PostgresEventStore, String) throws -> T) throws -> T {
        let schema = TestDatabase.freshSchema()
        let plain = try plainURL()
        defer { TestStores.dropPostgres(url: plain, schema: schema) }
        let store = try PostgresEventStore(url: url, schema: schema, partitionSize: partitionSize)
        return try body(store, schema)
    }

    static func relkind(_ schema: String, _ table: String) throws -> String? {
        try TestDatabase.execute("SELECT relkind::text FROM pg_class WHERE oid = '\(schema).\(table)'::regclass")
    }

    @Test("a new store is one table: the id and (stream, version) unique on it, event_ids a view of it, no append function writes event_ids; one-event and batched appends verify")
    func newStoreIsSingleTable() throws {
        try Self.withStore(url: try Self.plainURL()) { store, schema throws in
            #expect(try store.layout() == .singleTable)
            #expect(try store.layout().description == "single table")
            #expect(try Self.relkind(schema, "events") == "r")
            #expect(try Self.relkind(schema, "event_ids") == "v")
            #expect(try store.partitions().isEmpty)
            #expect(try TestDatabase.execute("""
                SELECT string_agg(conname || ':' || pg_get_constraintdef(oid), ',' ORDER BY conname) FROM pg_constraint
                WHERE conrelid = '\(schema).events'::regclass
                """) == "events_event_id_key:UNIQUE (event_id),events_pkey:PRIMARY KEY (\"position\"),events_position_check:CHECK (((\"position\" >= 1) AND (version >= 1))),events_stream_version_key:UNIQUE (stream_id, version)")
            #expect(try TestDatabase.execute("""
                SELECT string_agg(tgname, ',' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = '\(schema).events'::regclass AND NOT tgisinternal
                """) == "events_append_only,events_no_truncate")
            #expect(try TestDatabase.execute("""
                SELECT count(*) FROM pg_proc WHERE pronamespace = '\(schema)'::regnamespace
                  AND proname IN ('append', 'append_one', 'append_returning_hashes', 'append_copied')
                  AND prosrc NOT LIKE '%event_ids%' AND prosrc LIKE '%INSERT INTO "\(schema)".events %'
                """) == "4")
            #expect(try TestDatabase.execute("SELECT \(schema).make_partitions(5)") == String(Int64.max))

            try store.append(event(), to: "user-1", expectedVersion: .noStream)
            try store.append(event(), to: "user-1", expectedVersion: .exactly(1))
            try store.append([event(), event()], to: "user-2", expectedVersion: .any)
            _ = try store.append([StreamAppend(stream: "user-1", expectedVersion: .exactly(2), events: [event()]),
                                     StreamAppend(stream: "user-3", expectedVersion: .noStream, events: [event(), event()])])
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).event_ids") == "7")
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).events") == "7")
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 7)
            #expect(try KeptTreeCheck.extendAndVerify(store) == 7)
            // Updates and deletes stay refused.
            #expect(throws: (any Error).self) { try TestDatabase.execute("DELETE FROM \(schema).events") }
            #expect(throws: (any Error).self) { try TestDatabase.execute("TRUNCATE \(schema).events") }
        }
    }

    @Test("partitions are chosen at install: a partition size, evtool.layout = 'partitioned', or evtool.partition_size; a bad evtool.layout is refused")
    func partitionedOnRequest() throws {
        let url = try Self.plainURL()
        try Self.withStore(url: url, partitionSize: 50) { store, schema throws in
            #expect(try store.layout() == .partitioned(partitions: 2, size: 50))
            #expect(try store.layout().description == "partitioned by position, 2 partitions of 50 positions")
            #expect(try Self.relkind(schema, "events") == "p")
            #expect(try Self.relkind(schema, "event_ids") == "r")
            try store.append(event(), to: "user-1", expectedVersion: .noStream)
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).event_ids") == "1")
            // Opening it again with a size keeps it as it is.
            _ = try PostgresEventStore(url: url, schema: schema, partitionSize: 50)
        }
        try Self.withStore(url: Self.with(url, "evtool.layout=partitioned")) { store, _ throws in
            #expect(try store.layout() == .partitioned(partitions: 2, size: 1_000_000))
        }
        try Self.withStore(url: Self.with(url, "evtool.partition_size=9")) { store, _ throws in
            #expect(try store.layout() == .partitioned(partitions: 2, size: 9))
        }
        try Self.withStore(url: Self.with(url, "evtool.layout=single")) { store, _ throws in
            #expect(try store.layout() == .singleTable)
        }
        let schema = TestDatabase.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        #expect(throws: (any Error).self) { _ = try PostgresEventStore(url: Self.with(url, "evtool.layout=sharded"), schema: schema) }
        #expect(try TestDatabase.execute("SELECT count(*) FROM pg_namespace WHERE nspname = '\(schema)'") == "0")
    }

    @Test("a partition size for a store that exists with one table is refused: the layout is chosen when a store is made")
    func sizeForSingleTableStoreRefused() throws {
        let url = try Self.plainURL()
        try Self.withStore(url: url) { store, schema throws in
            try store.append(event(), to: "user-1", expectedVersion: .noStream)
            #expect {
                _ = try PostgresEventStore(url: url, schema: schema, partitionSize: 10)
            } throws: { error in
                guard case EventStoreError.invalidInput(let message) = error else { return false }
                return message.contains("single-table layout")
            }
            #expect(try store.layout() == .singleTable)
        }
    }

    @Test("a schema-17 store with events (partitioned): 18 keeps its layout, event_ids table and functions; upgraded to the latest, it appends and verifies")
    func partitionedStoreUpgradesUnchanged() throws {
        let url = try Self.plainURL()
        let name = TestDatabase.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: name) }
        let schema = try PostgresSchema(name: name)
        for step in 0..<17 {
            try TestDatabase.execute(schema.migrations[step] + "\nUPDATE \(schema.quoted).schema_version SET version = \(step + 1);")
        }
        try PostgresMigrationTests.appendWithOldFunction(name)
        let functions = "SELECT md5(string_agg(prosrc, '' ORDER BY proname)) FROM pg_proc WHERE pronamespace = '\(name)'::regnamespace"
        let before = try TestDatabase.execute(functions)
        try TestDatabase.execute(schema.migrations[17] + "\nUPDATE \(schema.quoted).schema_version SET version = 18;")
        #expect(try TestDatabase.execute(functions) == before)
        #expect(try Self.relkind(name, "event_ids") == "r")

        let store = try PostgresEventStore(url: url, schema: name)
        #expect(try TestDatabase.execute("SELECT version FROM \(name).schema_version") == String(PostgresSchema.currentVersion))
        #expect(try store.layout() == .partitioned(partitions: 2, size: 1_000_000))
        #expect(try Self.relkind(name, "event_ids") == "r")
        try store.append(event(), to: "user-1", expectedVersion: .exactly(3))
        try store.append([event(), event()], to: "user-9", expectedVersion: .noStream)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(name).event_ids") == "7")
        var verifier = try LogVerifier(store: store)
        #expect(try verifier.verifyLog().events == 7)
    }

    @Test("a duplicate event id on the single table is refused as duplicateEventID, one event or a batch, and nothing is written")
    func duplicateIDOnSingleTable() throws {
        try Self.withStore(url: try Self.plainURL()) { store, schema throws in
            let id = UUID()
            try store.append(event(id: id), to: "user-1", expectedVersion: .noStream)
            #expect(throws: EventStoreError.duplicateEventID(id)) {
                try store.append(event(id: id), to: "user-2", expectedVersion: .any)
            }
            #expect(throws: EventStoreError.duplicateEventID(id)) {
                try store.append([event(), event(id: id)], to: "user-1", expectedVersion: .exactly(1))
            }
            #expect(throws: EventStoreError.duplicateEventID(id)) {
                _ = try store.append([StreamAppend(stream: "user-3", expectedVersion: .noStream, events: [event()]),
                                         StreamAppend(stream: "user-1", expectedVersion: .any, events: [event(id: id)])])
            }
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).events") == "1")
            #expect(try TestDatabase.execute("SELECT string_agg(stream_id || ':' || version, ',' ORDER BY stream_id) FROM \(schema).streams WHERE version > 0") == "user-1:1")
            var verifier = try LogVerifier(store: store)
            #expect(try verifier.verifyLog().events == 1)
        }
    }

    @Test("an archive on the single table is refused, naming the layout and what to do, and nothing is recorded")
    func archiveRefusedOnSingleTable() throws {
        try Self.withStore(url: try Self.plainURL()) { store, schema throws in
            try store.append([event(), event()], to: "user-1", expectedVersion: .noStream)
            #expect {
                try store.checkCanArchive()
            } throws: { error in
                guard case EventStoreError.invalidInput(let message) = error else { return false }
                return message.contains("single-table layout") && message.contains("--partition-size")
            }
            let boundary = ArchiveBoundary(number: 1, position: 2, events: 1, fileEvents: 1, fileSHA256: String(repeating: "0", count: 64),
                                           fileName: "a.evtar", headsSHA256: String(repeating: "0", count: 64),
                                           treeRoot: String(repeating: "0", count: 64), archivedAt: "2026-01-01T00:00:00Z")
            #expect {
                try store.recordArchive(boundary, heads: StreamHeads(), states: [:])
            } throws: { error in
                guard case EventStoreError.invalidInput(let message) = error else { return false }
                return message.contains("single-table layout")
            }
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).archives") == "0")
            #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).events") == "2")
        }
    }

    @Test("the run's layout (EVTOOL_TEST_PG_LAYOUT) reaches every test store: on the shared server and on a cluster a test starts for itself")
    func testStoresGetTheRunsLayout() throws {
        let partitioned = TestStores.postgresLayout == "partitioned"
        func isPartitioned(_ layout: PostgresLayout) -> Bool {
            if case .partitioned = layout { return true }
            return false
        }
        let shared = try TestStores.postgres()
        defer { shared.cleanup() }
        #expect(isPartitioned(try shared.store.layout()) == partitioned, "a store on the shared server")
        let server = try PrivatePostgres.start()
        defer { server.remove() }
        let store = try PostgresEventStore(url: server.url, schema: "evtool")
        #expect(isPartitioned(try store.layout()) == partitioned, "a store on a cluster of the test's own")
    }
}
