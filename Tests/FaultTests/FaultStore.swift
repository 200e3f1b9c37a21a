import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// Which store a fault test runs on.
enum StoreKind: String, CaseIterable, StoreCases, Sendable, CustomTestStringConvertible {
    case sqlite, postgres
    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
}

/// A fresh store for one fault test: what to pass to `evtool --store` and to the fault driver,
/// how to open it in the test, and how to remove it.
struct FaultStore {
    let kind: StoreKind
    /// `--store`/`--to` for evtool: `sqlite:PATH` or a postgres URL with `schema=`.
    let cli: String
    /// `--store …` (and `--schema …`) for the fault driver.
    let driverArguments: [String]
    let path: String?
    private let url: String?
    private let schema: String?

    /// A new store named `name` (a file in `directory`, or a fresh schema on the test server).
    static func make(_ kind: StoreKind, name: String, in directory: String) throws -> FaultStore {
        switch kind {
        case .sqlite:
            let path = directory + "/\(name).sqlite"
            return FaultStore(kind: kind, cli: "sqlite:\(path)", driverArguments: ["--store", "sqlite:\(path)"], path: path, url: nil, schema: nil)
        case .postgres:
            let url = try TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            let cli = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            return FaultStore(kind: kind, cli: cli, driverArguments: ["--store", url, "--schema", schema], path: nil, url: url, schema: schema)
        }
    }

    /// Opens the store (creating an empty one if nothing made it yet).
    func open() throws -> any EventStore & ProjectionStore & MultiStreamAppending {
        if let path { return try SQLiteEventStore(path: path) }
        return try PostgresEventStore(url: url!, schema: schema!)
    }

    /// Whether the store has been created (a PostgreSQL schema is checked by opening it).
    var exists: Bool { path.map { FileManager.default.fileExists(atPath: $0) } ?? true }

    /// SQLite's integrity check ("ok" when sound); PostgreSQL keeps its own pages sound.
    func integrity() throws -> String {
        guard let path else { return "ok" }
        return try LogChecks.integrity(ofFileAt: path)
    }

    func remove() {
        if let path { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        if let url, let schema { TestStores.dropPostgres(url: url, schema: schema) }
    }
}
