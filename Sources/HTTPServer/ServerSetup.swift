import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import StoreLocations
import StorePostgres

/// A whole `evtool serve` made from its settings, in one library call (as a server framework's
/// `buildApplication` does): the store opened with a connection for each thread that may use
/// it, the application with the write path a long-lived server wants, the view memory and its
/// follower, the API and the libmicrohttpd edge, and the kept Merkle tree's and the views'
/// followers once it runs. The command line parses its options into ``Settings``, calls ``init(_:log:)``,
/// ``start()``, and waits for a signal before ``stop()``; a test runs the same server in its
/// own process.
package final class ServerSetup: @unchecked Sendable {
    // @unchecked: the followers are set by start() and stop() on the caller's thread only.
    /// What a server is made of, as `evtool serve`'s options give it.
    package struct Settings: Sendable {
        /// Where the store is.
        package var location: StoreLocation
        /// A PostgreSQL hot standby to read from, read-your-writes (`--read-store`).
        package var readLocation: StoreLocation?
        /// The bearer tokens; nil with authentication off (`--no-auth`).
        package var tokens: TokenFile?
        /// The key `POST /v1/admin/seal` signs checkpoints with.
        package var sealKey: Ed25519Key?
        /// Whether concurrent appends commit together.
        package var groupCommit = true
        /// Whether the server keeps the store's views current in the background (``ViewFollower``).
        package var followViews = true
        /// The view memory's bound in bytes; 0: off.
        package var viewMemoryBytes = 134_217_728
        /// How often a write is decided again when other writers keep winning.
        package var writeAttempts = 10
        /// Seconds between heartbeats on an idle event stream.
        package var heartbeatSeconds = 15.0
        /// The origins browser clients may call from; nil: no CORS.
        package var crossOrigin: CrossOrigin?
        /// The edge's configuration (address, threads, limits, TLS, log format).
        package var configuration = ServerConfiguration()

        /// Settings for a store; the rest at `evtool serve`'s defaults.
        package init(location: StoreLocation) { self.location = location }
    }

    /// The settings it was made with.
    package let settings: Settings
    /// The application every request goes through.
    package let application: Application
    /// The HTTP server.
    package let server: HTTPServer
    private let store: any EventStore & ProjectionStore
    private let log: @Sendable (String) -> Void
    private var memoryFollower: ViewMemoryFollower?
    private var treeFollower: KeptTreeFollower?
    private var viewFollower: ViewFollower?

    /// Opens the store and makes the server (nothing listens before ``start()``).
    /// - Parameter log: where the server's own lines go (`serve: …`), and the admin audit lines.
    /// - Throws: the store's or the read store's errors (``StoreLocationError``, the stores'
    ///   errors) when either cannot be used.
    package init(_ settings: Settings, log: @escaping @Sendable (String) -> Void) throws {
        self.settings = settings
        self.log = log
        let configuration = settings.configuration
        // A connection for each thread that may use the store at once: the connection
        // threads (reads), the write threads' loads, the group commits (up to 2 at once on
        // PostgreSQL), the tree follower, the view memory's follower, the views' follower.
        let store = try settings.location.openForServing(create: true, connections: configuration.threads + configuration.writeThreads + GroupCommitStore.parallelCommits + 4)
        self.store = store
        // A long-lived server decides a cached user's command without reading the stream
        // first (its append at the cached version is the check), for up to 200,000 users.
        // SQLite has one writer; PostgreSQL commits transactions in parallel
        // (GroupCommitStore.parallelCommits says why 2 at once there).
        let concurrentCommits: Int
        if case .sqlite = settings.location { concurrentCommits = 1 } else { concurrentCommits = GroupCommitStore.parallelCommits }
        if let readLocation = settings.readLocation, let primary = store as? PostgresEventStore {
            // Checked once at the start: a read store that is another store, or cannot be
            // reached now, stops the server from starting; one that goes away later costs
            // each read the bounded wait, and the store answers.
            let replica = try ReadStore.open(readLocation, for: primary, storeDescription: settings.location.description)
            application = Application(store: primary, readStore: replica, groupCommit: settings.groupCommit, decidesOnCachedState: true,
                                      cachedUsers: 200_000, concurrentCommits: concurrentCommits, writeAttempts: settings.writeAttempts)
            log("serve: reading views, history and the log from \(readLocation), read-your-writes (a read waits at most 0.5 s for it, else the store answers)")
        } else {
            application = Application(store: store, groupCommit: settings.groupCommit, decidesOnCachedState: true, cachedUsers: 200_000,
                                      concurrentCommits: concurrentCommits, writeAttempts: settings.writeAttempts)
        }
        var limits = API.Limits()
        limits.maximumBodyBytes = configuration.maximumBodyBytes
        limits.heartbeatSeconds = settings.heartbeatSeconds
        let location = settings.location
        let api = API(application: application, tokens: settings.tokens, limits: limits, sealKey: settings.sealKey,
                      auditLog: { line in RequestLog.write(line) }, storeDescription: location.description,
                      crossOrigin: settings.crossOrigin, storeSize: { location.sizeInBytes })
        server = HTTPServer(api: api, configuration: configuration)
    }

    /// Starts the view memory's follower, binds the address, and starts the kept tree's
    /// follower.
    /// - Throws: ``ServerError`` when the address cannot be bound (or TLS is not available),
    ///   or the follower's store error.
    package func start() throws {
        // Current views kept in memory, fed by this server's writes and by the log (docs/reference/http.md, Read).
        if settings.viewMemoryBytes > 0 {
            let log = self.log
            memoryFollower = try ViewMemoryFollower(store: store, memory: application.viewMemory, capacityBytes: settings.viewMemoryBytes) { line in
                log("serve: \(line)")
            }
        }
        do {
            try server.start()
        } catch {
            memoryFollower?.stop()
            memoryFollower = nil
            throw error
        }
        // The kept Merkle tree follows the head while the server runs (docs/explanation/audit.md).
        let log = self.log
        treeFollower = KeptTreeFollower(store: store) { line in log("serve: \(line)") }
        if settings.followViews { viewFollower = ViewFollower(store: store) { line in log("serve: \(line)") } }
    }

    /// Stops the server (the requests in flight finish within the configured grace) and the
    /// followers. Returns how many requests were still in flight when it stopped.
    @discardableResult
    package func stop() -> Int {
        let left = server.stop()
        treeFollower?.stop()
        viewFollower?.stop()
        memoryFollower?.stop()
        treeFollower = nil
        viewFollower = nil
        memoryFollower = nil
        return left
    }
}
