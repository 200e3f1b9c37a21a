import EventLog
import Foundation

/// A PostgreSQL cluster of a test's own, run with `scripts/postgres.sh`, so that crashing and
/// restarting it disturbs no other test (never do that to the shared server in
/// `EVTOOL_TEST_POSTGRES_URL`: other tests run against it in parallel).
public struct PrivatePostgres: Sendable {
    /// The cluster's folder (data, socket, log, port).
    public let directory: String
    /// The URL `scripts/postgres.sh start` printed; a restart keeps it (the same port).
    public let url: String

    /// `scripts/postgres.sh` in this checkout.
    public static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/postgres.sh").path
    }

    /// A fresh folder for a cluster: under `$EVTOOL_TEST_PG_ROOT` when set (`scripts/test.sh`
    /// sets it, and stops every cluster left there when the run ends, even one a crashed test
    /// process left running), else under /tmp.
    static func freshDirectory() -> String {
        let root = ProcessInfo.processInfo.environment["EVTOOL_TEST_PG_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        return "\(root)/evtool-pgtest-\(UUID().uuidString.prefix(8).lowercased())"
    }

    /// initdb and start a new cluster in a fresh folder (``freshDirectory()``). Its database
    /// gives new stores the layout the run asks for (``TestStores/postgresLayout``), as the
    /// shared server's URL does, so that the suites' second pass (scripts/test.sh) runs the
    /// crash, replica and failover tests on the partitioned layout too; a standby copies the
    /// setting with the catalog.
    public static func start() throws -> PrivatePostgres {
        let directory = freshDirectory()
        let url = try run("start", directory)
        let server = PrivatePostgres(directory: directory, url: url)
        if TestStores.postgresLayout != "single" {
            do {
                try server.askForLayout(TestStores.postgresLayout)
            } catch {
                server.remove()
                throw error
            }
        }
        return server
    }

    /// `ALTER DATABASE … SET evtool.layout`: the layout schema 18 gives a store it installs
    /// in this server's database (an `options=` in a test's URL still overrides it).
    func askForLayout(_ layout: String) throws {
        let sql = "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET evtool.layout = %L', current_database(), '\(layout)'); END $$"
        let (status, output) = try ChildProcess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
        guard status == 0 else {
            throw EventStoreError.unavailable("could not ask \(url) for the \(layout) layout (psql status \(status)): \(output)")
        }
    }

    /// Stops the server the way a crash would (`pg_ctl stop -m immediate`: no checkpoint,
    /// every session cut; recovery runs at the next start).
    public func crash() throws { try Self.run("crash", directory) }

    /// Starts the server again on the same port (after a crash or a stop).
    /// - Throws: when it cannot start, or comes back on another port (clients would not find it).
    public func restart() throws {
        let again = try Self.run("start", directory)
        guard again == url else {
            throw EventStoreError.unavailable("the restarted server listens at \(again), not at \(url)")
        }
    }

    /// Starts a hot standby of this (running) server in a fresh folder: `pg_basebackup -R`,
    /// streaming replication (`scripts/postgres.sh standby`). With `synchronous`, this server
    /// then acknowledges a commit only once the standby has applied it
    /// (`synchronous_commit = remote_apply`).
    public func standby(synchronous: Bool) throws -> PrivatePostgres {
        let directory = Self.freshDirectory()
        let (status, output) = try ChildProcess.run(["/bin/bash", Self.script, "standby", self.directory, directory] + (synchronous ? ["sync"] : []))
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: directory)
            throw EventStoreError.unavailable("scripts/postgres.sh standby \(self.directory) \(directory) failed with status \(status)")
        }
        return PrivatePostgres(directory: directory, url: output.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Promotes this standby to a primary (`pg_ctl promote`), waiting until it takes writes.
    public func promote() throws { try Self.run("promote", directory) }

    /// The TCP port the server listens on.
    public var port: Int { URLComponents(string: url)?.port ?? 5432 }

    /// Stops the server cleanly, keeping its folder (it can be restarted).
    public func stop() throws { try Self.run("stop", directory) }

    /// Stops the server and removes its folder.
    public func remove() {
        _ = try? Self.run("stop", directory)
        try? FileManager.default.removeItem(atPath: directory)
    }

    @discardableResult
    static func run(_ command: String, _ directory: String) throws -> String {
        // Not Processes.run: see ChildProcess for why it would never return here.
        let (status, output) = try ChildProcess.run(["/bin/bash", script, command, directory])
        guard status == 0 else {
            throw EventStoreError.unavailable("scripts/postgres.sh \(command) \(directory) failed with status \(status) (see \(directory)/server.log)")
        }
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
