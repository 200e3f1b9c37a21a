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
            let postgres = try TestStores.postgres()
            return StoreUnderTest(store: postgres.store, cleanup: postgres.cleanup)
        case .sqliteFile:
            let sqlite = try TestStores.sqliteFile()
            return StoreUnderTest(store: sqlite.store, cleanup: sqlite.cleanup)
        }
    }
}

