import EventLog
import Foundation
import StoreLocations
import TestSupport
import Testing
import Transfer

/// A fresh store for the library's operation tests, by its location as a user gives it, on an
/// SQLite file or a PostgreSQL schema of the test server; and how to change it behind
/// evtool's back (tampering, with the append-only triggers off).
struct KitStore {
    let location: StoreLocation
    let backend: String
    private let path: String?
    private let url: String?
    private let schema: String?
    let cleanup: () -> Void

    /// A new store; `partitioned` asks a PostgreSQL store for the partitioned layout (archive needs it).
    static func make(_ backend: String, partitioned: Bool = false) throws -> KitStore {
        switch backend {
        case "sqlite":
            let directory = try TemporaryDirectory()
            let path = directory.path + "/events.sqlite"
            return KitStore(location: .sqlite(path: path), backend: backend, path: path, url: nil, schema: nil, cleanup: { directory.remove() })
        default:
            let url = try partitioned ? TestStores.partitionedPostgresURL() : TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            let joined = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            return KitStore(location: .postgres(url: joined), backend: backend, path: nil, url: url, schema: schema,
                            cleanup: { TestStores.dropPostgres(url: url, schema: schema) })
        }
    }

    /// Opens (creating) the store.
    func open() throws -> any MultiStreamAppending { try location.openForCopying() }

    /// Appends `events` raw events to `stream`, after what it holds.
    func append(_ stream: String, _ count: Int, type: String = "Noted", to store: any EventStore) throws {
        for index in 1...count {
            _ = try store.append([ProposedEvent(type: type, data: Data(#"{"n":\#(index),"stream":"\#(stream)"}"#.utf8),
                                                metadata: Data(#"{"by":"test"}"#.utf8))], to: stream, expectedVersion: .any)
        }
    }

    /// Runs SQL on the store with the append-only protection off.
    func tamper(_ sql: String) throws {
        let result: Processes.Result
        if let path {
            result = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER events_append_only_update; DROP TRIGGER events_append_only_delete; " + sql])
        } else if let url, let schema {
            result = try Processes.run(Processes.psql, [url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                                        "SET search_path TO \(schema); ALTER TABLE events DISABLE TRIGGER events_append_only; " + sql])
        } else {
            Issue.record("no store to tamper with")
            return
        }
        #expect(result.status == 0, "\(result)")
    }
}

/// The message of an ``OperationError`` of the kind `kind`, or a recorded issue.
func operationError(_ kind: String, _ body: () throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) -> String {
    do {
        try body()
        Issue.record("expected an OperationError.\(kind), got none", sourceLocation: sourceLocation)
        return ""
    } catch let error as OperationError {
        let actual: String
        switch error {
        case .notAStore: actual = "notAStore"
        case .nothingToDo: actual = "nothingToDo"
        case .invalid: actual = "invalid"
        case .unsupported: actual = "unsupported"
        case .newerSchema: actual = "newerSchema"
        case .interrupted: actual = "interrupted"
        case .store: actual = "store"
        case .cannotWrite: actual = "cannotWrite"
        case .incompleteCopy: actual = "incompleteCopy"
        }
        #expect(actual == kind, "\(error)", sourceLocation: sourceLocation)
        return error.description
    } catch {
        Issue.record("expected an OperationError.\(kind), got \(error)", sourceLocation: sourceLocation)
        return ""
    }
}

/// Lines as a ``LineReader`` reads them.
func lines(_ text: String) -> LineReader { LineReader(source: MemoryBytes(Data(text.utf8))) }
