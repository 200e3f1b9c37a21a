import EventLog
import Foundation
@testable import StorePostgres
import Testing
import TestSupport

/// The test server, started by `scripts/test.sh` (or `scripts/postgres.sh start DIR`).
enum TestDatabase {
    /// The URL of the test database; fails the test when it is not set, because
    /// PostgreSQL tests must never skip silently.
    static func url() throws -> String {
        guard let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"], !url.isEmpty else {
            Issue.record("EVTOOL_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a throwaway PostgreSQL and exports its URL (or: URL=$(scripts/postgres.sh start /tmp/pg) && EVTOOL_TEST_POSTGRES_URL=$URL swift test)")
            throw MissingServer()
        }
        return TestStores.withTestLayout(url)
    }

    struct MissingServer: Error {}

    /// A fresh schema name for one test.
    static func freshSchema() -> String {
        "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
    }

    /// Runs `body` with a store in a fresh schema, dropping the schema afterwards.
    static func withStore<T>(_ body: (PostgresEventStore, String) throws -> T) throws -> T {
        let url = try url()
        let schema = freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let store = try PostgresEventStore(url: url, schema: schema)
        return try body(store, schema)
    }

    /// Runs SQL text on a new connection (for test set-up: breaking things on purpose).
    @discardableResult
    static func execute(_ sql: String) throws -> String? {
        let connection = try PostgresConnection(conninfo: try url())
        return PostgresResultText.value(try connection.execute(sql))
    }

    /// The URL's host and port, e.g. `127.0.0.1:5432`.
    static func hostAndPort() throws -> (host: String, port: String) {
        let url = try url()
        let components = try #require(URLComponents(string: url))
        return (components.host ?? "localhost", String(components.port ?? 5432))
    }
}

/// An event with JSON data.
func event(_ type: String = "Searched", _ json: String = #"{"q":"jazz"}"#, id: UUID = UUID()) -> ProposedEvent {
    ProposedEvent(id: id, type: type, data: Data(json.utf8), metadata: Data(#"{"by":"test"}"#.utf8))
}
