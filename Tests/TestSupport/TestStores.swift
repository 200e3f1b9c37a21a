import EventLog
import Foundation
import StorePostgres
import StoreSQLite

/// Fresh stores for tests: SQLite files in temporary folders, and PostgreSQL schemas on the
/// server that `scripts/test.sh` starts.
public enum TestStores {
    /// The test server's URL. Without it a PostgreSQL test fails (never skips), saying how to
    /// start one.
    public static func postgresURL() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"], !url.isEmpty else {
            throw EventStoreError.unavailable("EVTOOL_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a throwaway PostgreSQL (or: URL=$(scripts/postgres.sh start /tmp/pg) && EVTOOL_TEST_POSTGRES_URL=$URL swift test)")
        }
        return withTestLayout(url)
    }

    /// The test server's URL asking for the partitioned layout (schema 18), whatever
    /// EVTOOL_TEST_PG_LAYOUT says: for tests of what only that layout does (archive).
    public static func partitionedPostgresURL() throws -> String {
        _ = try postgresURL()
        let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"] ?? ""
        return url + (url.contains("?") ? "&" : "?") + "options=-c%20evtool.layout%3Dpartitioned"
    }

    /// The layout new test stores get (`EVTOOL_TEST_PG_LAYOUT`: `single`, the default, or
    /// `partitioned`), so that the PostgreSQL suites run on both (scripts/test.sh runs them
    /// twice).
    public static var postgresLayout: String {
        let layout = ProcessInfo.processInfo.environment["EVTOOL_TEST_PG_LAYOUT"] ?? ""
        return layout.isEmpty ? "single" : layout
    }

    /// Whether this run is the PostgreSQL suites' pass on the partitioned layout
    /// (scripts/test.sh): tests parameterised over stores then take only their PostgreSQL
    /// cases (each target's `StoreKind.underTest`), the SQLite ones having run already.
    public static var postgresOnly: Bool { postgresLayout != "single" }

    /// `url` with the session setting `evtool.layout` that asks for ``postgresLayout`` when it
    /// is not the default (a store is installed by the session that opens it first). A test
    /// that adds its own `options=` to the URL replaces this one.
    public static func withTestLayout(_ url: String) -> String {
        guard postgresLayout != "single" else { return url }
        return url + (url.contains("?") ? "&" : "?") + "options=-c%20evtool.layout%3D\(postgresLayout)"
    }

    /// A schema name no other test uses.
    public static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// A store in a fresh PostgreSQL schema, how to open more handles to it (new
    /// connections, as other app servers would), and how to drop it.
    public static func postgres() throws -> (store: PostgresEventStore, open: () throws -> PostgresEventStore, url: String, schema: String, cleanup: () -> Void) {
        let url = try postgresURL()
        let schema = freshSchema()
        let store = try PostgresEventStore(url: url, schema: schema)
        return (store, { try PostgresEventStore(url: url, schema: schema) }, url, schema, { try? PostgresEventStore.dropSchema(url: url, schema: schema) })
    }

    /// A store URL for a fresh schema on the test server (for a process under test: the CLI,
    /// `evtool serve`), and how to drop the schema.
    public static func freshPostgresStore() throws -> (url: String, drop: () -> Void) {
        let url = try postgresURL()
        let schema = freshSchema()
        return (url + (url.contains("?") ? "&" : "?") + "schema=" + schema, { dropPostgres(url: url, schema: schema) })
    }

    /// A store URL for a process under test: an SQLite file in `directory` (removed with it),
    /// or with `postgres` a fresh schema on the test server; and how to drop that schema.
    public static func storeURL(postgres: Bool, in directory: String, file: String = "serve.sqlite") throws -> (url: String, drop: () -> Void) {
        postgres ? try freshPostgresStore() : ("sqlite:\(directory)/\(file)", {})
    }

    /// Drops a test schema (for tests that only handed its URL to the CLI, or clean up after
    /// themselves). A clean-up is not what a test checks: a schema it could not drop stays on
    /// the throwaway server, which `scripts/test.sh` removes when the run ends.
    public static func dropPostgres(url: String, schema: String) {
        try? PostgresEventStore.dropSchema(url: url, schema: schema)
    }

    /// A store in a new SQLite file in a fresh folder, how to open more handles (connections)
    /// to the file, and how to remove it.
    public static func sqliteFile() throws -> (store: SQLiteEventStore, open: () throws -> SQLiteEventStore, path: String, cleanup: () -> Void) {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/events.sqlite"
        return (try SQLiteEventStore(path: path), { try SQLiteEventStore(path: path) }, path, { directory.remove() })
    }
}

/// Reading views as stored, for tests that compare them.
public enum StoredViews {
    /// Every document of a view's active generation, by key, as stored.
    public static func documents(of name: String, in store: any ProjectionStore) throws -> [String: Data] {
        guard let active = try store.projectionStatuses().first(where: { $0.name == name && $0.isActive }) else { return [:] }
        var documents: [String: Data] = [:]
        var after = ""
        while true {
            let page = try store.documents(of: name, generation: active.generation, after: after, limit: 500)
            for (key, document) in page { documents[key] = document }
            guard let last = page.last else { return documents }
            after = last.key
        }
    }
}

/// A test target's kinds of store, one of them PostgreSQL: what a parameterised test runs on.
public protocol StoreCases: CaseIterable {
    /// The PostgreSQL case.
    static var postgres: Self { get }
}

extension StoreCases {
    /// The cases a parameterised test runs: only PostgreSQL in the suites' pass on the
    /// partitioned layout (``TestStores/postgresOnly``), every case otherwise.
    public static var underTest: [Self] { TestStores.postgresOnly ? [.postgres] : Array(allCases) }
}
