import EventLog
import Foundation
import StorePostgres

/// A primary and a streaming hot standby of it, of a test's own (``PrivatePostgres``), for
/// the tests that read from a standby; ``remove()`` stops and removes both.
public struct ReplicaPair: Sendable {
    public let primary: PrivatePostgres
    public let standby: PrivatePostgres

    /// Starts a primary and a standby of it (asynchronous unless `synchronous`).
    public static func start(synchronous: Bool = false) throws -> ReplicaPair {
        let primary = try PrivatePostgres.start()
        do {
            return ReplicaPair(primary: primary, standby: try primary.standby(synchronous: synchronous))
        } catch {
            primary.remove()
            throw error
        }
    }

    /// `url` with evtool's `schema=NAME`.
    public static func url(_ url: String, schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "schema=" + schema
    }

    /// Waits (up to 30 s) until the standby has replayed the creation of the store in `schema`
    /// (made on the primary).
    public func waitForStandbyStore(schema: String = "evtool") throws {
        let deadline = Date().addingTimeInterval(30)
        while true {
            do {
                _ = try PostgresEventStore(url: standby.url, schema: schema, notifiesFollowers: false, createIfMissing: false)
                return
            } catch EventStoreError.unavailable where Date() < deadline {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
    }

    /// One SQL statement through psql on `server`; its output (tuples only, unaligned).
    @discardableResult
    public static func psql(_ server: PrivatePostgres, _ sql: String) throws -> String {
        let (status, output) = try ChildProcess.run([Processes.psql, "-X", "-q", "-A", "-t", "-d", server.url, "-c", sql])
        guard status == 0 else { throw EventStoreError.unavailable("psql -c '\(sql)' on \(server.url) failed with status \(status): \(output)") }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Transactions committed so far in the standby's database (`pg_stat_database`): rises
    /// when evtool reads there.
    public func standbyTransactions() throws -> Int {
        Int(try Self.psql(standby, "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()")) ?? -1
    }

    public func remove() {
        standby.remove()
        primary.remove()
    }
}
