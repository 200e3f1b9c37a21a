import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// A fresh, empty database under test, and how to open more handles to it (one per
/// simulated app server) and dispose of it.
struct TestDatabase {
    /// Opens a handle to the database: a new connection where the store has connections.
    let openHandle: () throws -> any EventStore
    let cleanup: () -> Void
}

/// Every store the runner tests run against, unchanged. Adding a store is one case.
struct StoreFactory: CustomTestStringConvertible, Sendable {
    let name: String
    let makeDatabase: @Sendable () throws -> TestDatabase

    var testDescription: String { name }

    static let inMemory = StoreFactory(name: "in-memory") {
        let store = InMemoryEventStore()
        return TestDatabase(openHandle: { store }, cleanup: {})
    }

    /// One SQLite file; each handle is its own connection, as separate processes would be.
    static let sqliteFile = StoreFactory(name: "SQLite file") {
        let sqlite = try TestStores.sqliteFile()
        return TestDatabase(openHandle: sqlite.open, cleanup: sqlite.cleanup)
    }

    /// One PostgreSQL schema on the test server; each handle is its own store with its own
    /// connections, as separate app servers would be.
    static let postgres = StoreFactory(name: "PostgreSQL") {
        let postgres = try TestStores.postgres()
        return TestDatabase(openHandle: postgres.open, cleanup: postgres.cleanup)
    }

    static var all: [StoreFactory] {
        [.inMemory, .sqliteFile, .postgres]
    }
}
