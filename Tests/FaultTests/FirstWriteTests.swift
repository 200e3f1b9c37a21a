import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// Many processes writing at once to a store that does not exist yet: one of them creates
/// it, every other one waits for it and recognises it; each write succeeds.
@Suite("Faults: concurrent first writes to a new store", .serialized)
struct FirstWriteTests {
    /// Processes started at once per round.
    static let writers = 12

    /// Starts `writers` evtool appends at once (each to its own stream) and returns their results.
    static func race(store: String) throws -> [Processes.Result] {
        let running = try (0..<writers).map { index in
            try Processes.start(Binaries.evtool, ["append", "--stream", "writer-\(index)", "--type", "Note", "--data", #"{"writer":\#(index)}"#, "--store", store])
        }
        return try running.map { try $0.finish() }
    }

    @Test("SQLite: 12 processes appending at once to a file that does not exist all succeed, round after round")
    func sqliteFile() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        // 40 rounds of 12: the unguarded creation failed about one writer in a hundred.
        let rounds = FaultSettings.isHeavy ? 200 : 40
        var failures: [String] = []
        for round in 0..<rounds {
            let path = directory.path + "/round-\(round).sqlite"
            for (index, result) in try Self.race(store: "sqlite:\(path)").enumerated() where result.status != 0 || result.wasSignaled {
                failures.append("round \(round), writer \(index): \(result)")
            }
            let store = try SQLiteEventStore(path: path)
            #expect(try store.headPosition() == Int64(Self.writers), "round \(round)")
            #expect(try store.schemaVersion() == SQLiteEventStore.inMemory().schemaVersion(), "round \(round)")
        }
        #expect(failures.isEmpty, "\(failures.count) of \(rounds * Self.writers) first writes failed:\n\(failures.prefix(5).joined(separator: "\n"))")
        FaultSettings.report("first writes: \(rounds) rounds of \(Self.writers) processes on a new SQLite file, \(failures.count) failed")
    }

    @Test("PostgreSQL: 12 processes appending at once to a schema that does not exist all succeed, round after round")
    func postgresSchema() throws {
        let url = try TestStores.postgresURL()
        let rounds = FaultSettings.isHeavy ? 40 : 8
        var failures: [String] = []
        for round in 0..<rounds {
            let schema = TestStores.freshSchema()
            defer { TestStores.dropPostgres(url: url, schema: schema) }
            let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            for (index, result) in try Self.race(store: store).enumerated() where result.status != 0 || result.wasSignaled {
                failures.append("round \(round), writer \(index): \(result)")
            }
            // Every writer's event once. Positions may have gaps: a one-event append that another
            // took a position beside is refused and called again (schema 14), as an aborted one is.
            let opened = try PostgresEventStore(url: url, schema: schema)
            let log = try opened.readAll(after: 0, limit: 1000)
            #expect(log.count == Self.writers && Set(log.map(\.id)).count == Self.writers, "round \(round)")
            #expect(try opened.headPosition() >= Int64(Self.writers), "round \(round)")
        }
        #expect(failures.isEmpty, "\(failures.count) of \(rounds * Self.writers) first writes failed:\n\(failures.prefix(5).joined(separator: "\n"))")
        FaultSettings.report("first writes: \(rounds) rounds of \(Self.writers) processes on a new PostgreSQL schema, \(failures.count) failed")
    }
}
