import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// A store under test and how to dispose of it.
struct StoreUnderTest {
    let store: any EventStore
    let cleanup: () -> Void
}

/// Every kind of store the conformance suite runs against, unchanged.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case sqliteFile
    case sqliteMemory
    case postgres

    var testDescription: String { rawValue }

    /// Opens a fresh, empty store of this kind.
    func make() throws -> StoreUnderTest {
        switch self {
        case .inMemory:
            return StoreUnderTest(store: InMemoryEventStore(), cleanup: {})
        case .sqliteMemory:
            return StoreUnderTest(store: try SQLiteEventStore.inMemory(), cleanup: {})
        case .postgres:
            // The server comes from scripts/test.sh; without it the test fails, never skips.
            guard let url = ProcessInfo.processInfo.environment["EVTOOL_TEST_POSTGRES_URL"], !url.isEmpty else {
                throw EventStoreError.unavailable("EVTOOL_TEST_POSTGRES_URL is not set: run the tests with scripts/test.sh, which starts a throwaway PostgreSQL")
            }
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            let store = try PostgresEventStore(url: url, schema: schema)
            return StoreUnderTest(store: store, cleanup: { try? PostgresEventStore.dropSchema(url: url, schema: schema) })
        case .sqliteFile:
            let directory = try TemporaryDirectory()
            let store = try SQLiteEventStore(path: directory.path + "/events.sqlite")
            return StoreUnderTest(store: store, cleanup: { directory.remove() })
        }
    }
}

