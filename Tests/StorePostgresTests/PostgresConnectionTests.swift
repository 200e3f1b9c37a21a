import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import Testing

@Suite("PostgreSQL store: schema install and connections")
struct PostgresConnectionTests {
    @Test("installing the schema twice is harmless and records the current version")
    func idempotentInstall() throws {
        try TestDatabase.withStore { store, schema in
            _ = try store.append(event(), to: "u", expectedVersion: .any)
            let again = try PostgresEventStore(url: try TestDatabase.url(), schema: schema)
            #expect(try again.version(of: "u") == 1)
            #expect(try TestDatabase.execute("SELECT version FROM \(schema).schema_version") == String(PostgresEventStore.supportedSchemaVersion))
        }
    }

    @Test("several stores opening the same new schema at once all succeed")
    func concurrentInstall() throws {
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let failures = Failures()
        let threads = (0..<6).map { _ in
            Thread {
                do { _ = try PostgresEventStore(url: url, schema: schema) } catch { failures.add("\(error)") }
            }
        }
        threads.forEach { $0.start() }
        let finished = Date().addingTimeInterval(60)
        while threads.contains(where: { !$0.isFinished }) && Date() < finished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(failures.all.isEmpty)
        let store = try PostgresEventStore(url: url, schema: schema)
        _ = try store.append(event(), to: "u", expectedVersion: .noStream)
        #expect(try TestDatabase.execute("SELECT count(*) FROM \(schema).schema_version") == "1")
    }

    @Test("a schema written by a newer evtool is refused")
    func newerSchema() throws {
        try TestDatabase.withStore { _, schema in
            try TestDatabase.execute("UPDATE \(schema).schema_version SET version = 99")
            #expect(throws: EventStoreError.newerSchema(found: 99, supported: PostgresEventStore.supportedSchemaVersion)) {
                _ = try PostgresEventStore(url: try TestDatabase.url(), schema: schema)
            }
        }
    }

    @Test("a bad schema name is refused")
    func badSchemaName() throws {
        let url = try TestDatabase.url()
        for name in ["", "Upper", "1abc", "a-b", "a\"b", "pg_x", String(repeating: "a", count: 64)] {
            #expect(throws: EventStoreError.self) { _ = try PostgresEventStore(url: url, schema: name) }
        }
    }

    @Test("libpq key=value strings and the PG* environment variables work")
    func conninfoAndEnvironment() throws {
        let (host, port) = try TestDatabase.hostAndPort()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: try TestDatabase.url(), schema: schema) }
        let keyValue = try PostgresEventStore(url: "host=\(host) port=\(port) user=postgres dbname=evtool_test", schema: schema)
        _ = try keyValue.append(event(), to: "u", expectedVersion: .any)

        // The environment is process-wide, so only this test sets it, and only for a moment.
        setenv("PGHOST", host, 1); setenv("PGPORT", port, 1); setenv("PGUSER", "postgres", 1); setenv("PGDATABASE", "evtool_test", 1)
        defer { unsetenv("PGHOST"); unsetenv("PGPORT"); unsetenv("PGUSER"); unsetenv("PGDATABASE") }
        let fromEnvironment = try PostgresEventStore(url: "", schema: schema)
        #expect(try fromEnvironment.version(of: "u") == 1)
    }

    @Test("a server that is not running gives a clear error naming host:port, never the password")
    func serverNotRunning() throws {
        let secret = "s3cret-Pa55word"
        let url = "postgresql://someone:\(secret)@127.0.0.1:1/evtool_test"
        let error = try #require(throws: EventStoreError.self) { _ = try PostgresEventStore(url: url, schema: "evtool") }
        guard case .unavailable(let message) = error else { Issue.record("expected unavailable, got \(error)"); return }
        #expect(message.hasPrefix("cannot connect to 127.0.0.1:1: "))
        #expect(message.contains("refused"))
        #expect(!message.contains(secret))
        #expect(!"\(error)".contains(secret))
        #expect(!message.contains("\n"))
    }

    @Test("a missing database is reported by name")
    func missingDatabase() throws {
        let (host, port) = try TestDatabase.hostAndPort()
        let error = try #require(throws: EventStoreError.self) {
            _ = try PostgresEventStore(url: "postgresql://postgres@\(host):\(port)/no_such_db", schema: "evtool")
        }
        #expect(error == .unavailable("cannot connect to \(host):\(port): database \"no_such_db\" does not exist"))
    }

    @Test("a wrong password is reported without the password")
    func wrongPassword() throws {
        // scripts/postgres.sh creates this role and requires its password over TCP.
        let (host, port) = try TestDatabase.hostAndPort()
        let secret = "not-the-Password-42"
        let error = try #require(throws: EventStoreError.self) {
            _ = try PostgresEventStore(url: "postgresql://evtool_password_test:\(secret)@\(host):\(port)/evtool_test", schema: "evtool")
        }
        #expect(error == .unavailable("cannot connect to \(host):\(port): password authentication failed for user \"evtool_password_test\""))
        #expect(!"\(error)".contains(secret))
        // And the right one works.
        let schema = TestDatabase.freshSchema()
        try TestDatabase.execute("GRANT CREATE ON DATABASE evtool_test TO evtool_password_test")
        let store = try PostgresEventStore(url: "postgresql://evtool_password_test:evtool-test-password@\(host):\(port)/evtool_test", schema: schema)
        _ = try store.append(event(), to: "u", expectedVersion: .any)
        try PostgresEventStore.dropSchema(url: try TestDatabase.url(), schema: schema)
    }

    @Test("a connection killed during an append reports an unknown outcome; the retry is safe")
    func outcomeUnknown() throws {
        try TestDatabase.withStore { store, schema in
            let url = try TestDatabase.url()
            // Hold the reservation's lock from an owner's session so the append waits inside the server.
            let blocker = try PostgresConnection(conninfo: url)
            try blocker.execute("BEGIN")
            try blocker.execute("LOCK TABLE \(schema).append_reservation IN EXCLUSIVE MODE")

            let batch = [event(), event()]
            let outcome = Outcome()
            let writer = Thread {
                do { _ = try store.append(batch, to: "victim", expectedVersion: .noStream); outcome.set("appended") }
                catch { outcome.set(error) }
            }
            writer.start()
            // Wait until the append is waiting for the lock, then kill its backend.
            var killed = "0"
            for _ in 0..<500 where killed == "0" {
                Thread.sleep(forTimeInterval: 0.01)
                killed = try TestDatabase.execute("""
                    SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                    WHERE wait_event_type = 'Lock' AND query LIKE '%\(schema)%append%'
                    """) ?? "0"
            }
            #expect(killed == "1")
            try blocker.execute("ROLLBACK")
            let result = try #require(outcome.wait())
            guard case EventStoreError.outcomeUnknown(let reason)? = result as? EventStoreError else {
                Issue.record("expected outcomeUnknown, got \(result)"); return
            }
            #expect(reason.contains("lost"))
            // Nothing was half-written, and the retry with the same ids succeeds exactly once.
            #expect(try store.version(of: "victim") == 0)
            let retry = try store.append(batch, to: "victim", expectedVersion: .noStream)
            #expect(retry.streamVersion == 2)
            #expect(throws: EventStoreError.duplicateEventID(batch[0].id)) {
                _ = try store.append(batch, to: "victim", expectedVersion: .any)
            }
        }
    }
}

/// Error messages collected from several threads.
final class Failures: Sendable {
    private let messages = Mutex<[String]>([])
    func add(_ message: String) { messages.withLock { $0.append(message) } }
    var all: [String] { messages.withLock { $0 } }
}

/// The result of work on another thread.
final class Outcome: Sendable {
    private let value = Mutex<(any Error & Sendable)?>(nil)
    private let done = Mutex(false)
    func set(_ result: any Error & Sendable) { value.withLock { $0 = result }; done.withLock { $0 = true } }
    func set(_ text: String) { value.withLock { $0 = TextResult(text: text) }; done.withLock { $0 = true } }
    /// Waits up to 30 seconds for the result.
    func wait() -> (any Error & Sendable)? {
        for _ in 0..<3_000 {
            if done.withLock({ $0 }) { return value.withLock { $0 } }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return nil
    }
    struct TextResult: Error, Sendable { let text: String }
}
