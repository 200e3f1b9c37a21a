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
enum StoreKind: String, CaseIterable, StoreCases, CustomTestStringConvertible, Sendable {
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


/// A store that keeps views, under test: how to open another handle to the same store (as a
/// second projector process would) and how to dispose of it.
struct ViewStoreUnderTest {
    let store: any EventStore & ProjectionStore
    let open: () throws -> any EventStore & ProjectionStore
    let cleanup: () -> Void
}

/// Every kind of ``ProjectionStore`` the projection-store conformance suite runs against,
/// unchanged. (There is no in-memory projection store; SQLite's in-memory database is the
/// nearest, and its "other handle" is the same store object, shared between threads.)
enum ViewStoreKind: String, CaseIterable, StoreCases, CustomTestStringConvertible, Sendable {
    case sqliteFile
    case sqliteMemory
    case postgres

    var testDescription: String { rawValue }

    /// Opens a fresh, empty store of this kind.
    func make() throws -> ViewStoreUnderTest {
        switch self {
        case .sqliteMemory:
            let store = try SQLiteEventStore.inMemory()
            return ViewStoreUnderTest(store: store, open: { store }, cleanup: {})
        case .sqliteFile:
            let sqlite = try TestStores.sqliteFile()
            return ViewStoreUnderTest(store: sqlite.store, open: { try sqlite.open() }, cleanup: sqlite.cleanup)
        case .postgres:
            // The server comes from scripts/test.sh; without it the test fails, never skips.
            let postgres = try TestStores.postgres()
            return ViewStoreUnderTest(store: postgres.store, open: { try postgres.open() }, cleanup: postgres.cleanup)
        }
    }

    /// The kinds whose stores grant projection leases (``ProjectionLeasing``): PostgreSQL,
    /// where many app servers run projectors. (A conformance test checks this list.)
    static let leasing: [ViewStoreKind] = [.postgres]
}
