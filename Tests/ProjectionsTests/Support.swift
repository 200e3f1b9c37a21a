import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StoreSQLite
import Testing
import TestSupport

/// The stores that hold views: every projector test runs on each.
enum ViewStoreKind: String, CaseIterable, StoreCases, CustomTestStringConvertible, Sendable {
    case sqliteFile
    case postgres

    var testDescription: String { rawValue }

    /// A fresh, empty store of this kind.
    func make() throws -> ViewStoreFixture {
        switch self {
        case .sqliteFile:
            let sqlite = try TestStores.sqliteFile()
            return ViewStoreFixture(store: sqlite.store, open: sqlite.open, remove: sqlite.cleanup)
        case .postgres:
            let postgres = try TestStores.postgres()
            return ViewStoreFixture(store: postgres.store, open: postgres.open, remove: postgres.cleanup)
        }
    }
}

/// A store under test that holds views, how to open another handle to it (as another
/// process would), and how to dispose of it.
struct ViewStoreFixture {
    let store: any EventStore & ProjectionStore & MultiStreamAppending
    let open: () throws -> any EventStore & ProjectionStore & MultiStreamAppending
    let remove: () -> Void
}

/// A fresh SQLite file store, for the tests that are about SQLite only.
struct SQLiteFixture {
    let store: SQLiteEventStore
    let remove: () -> Void

    init() throws {
        let sqlite = try TestStores.sqliteFile()
        store = sqlite.store
        remove = sqlite.cleanup
    }
}

/// Records `count` simulated actions through the real command runner.
@discardableResult
func recordActivity(_ count: Int, users: Int, listings: Int = 200, seed: UInt64, into store: any EventStore) throws -> Int {
    let runner = CommandRunner(store: store)
    var generator = ActivityGenerator(users: users, listings: listings, seed: seed)
    var recorded = 0
    for index in 0..<count {
        let action = generator.next()
        let context = CommandContext(userID: action.userID, source: "test", occurredAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(index)))
        if try runner.handle(action.command, context: context).isRecorded { recorded += 1 }
    }
    return recorded
}

/// Every document of a view's active generation, by key, as stored.
func storedView(_ name: String, in store: any ProjectionStore) throws -> [String: Data] {
    try StoredViews.documents(of: name, in: store)
}

/// What a rebuild from scratch computes for a view: the pure fold of the whole log, encoded.
func foldedView<P: Projection>(_ projection: P, from store: any EventStore) throws -> [String: Data] {
    var events: [ViewEvent] = []
    try store.forEachBatch { batch in events += batch.compactMap(ViewEvent.decode) }
    return projection.fold(events).mapValues(\.jsonData)
}
/// A store that hands every call to `base`; test stores override what they observe or break.
class ForwardingViewStore: EventStore, ProjectionStore, @unchecked Sendable {
    // @unchecked: subclasses guard their own state.
    let base: any EventStore & ProjectionStore

    init(base: any EventStore & ProjectionStore) { self.base = base }

    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try base.append(events, to: stream, expectedVersion: expectedVersion)
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try base.readAll(after: position, limit: limit) }
    func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        try base.scanAll(after: position, limit: limit, body)
    }
    func headPosition() throws -> Int64 { try base.headPosition() }
    func version(of stream: String) throws -> Int64 { try base.version(of: stream) }
    func projectionStatuses() throws -> [ProjectionStatus] { try base.projectionStatuses() }
    func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus { try base.startGeneration(of: projection, version: version) }
    func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
        try base.documents(of: projection, generation: generation, keys: keys)
    }
    func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)] {
        try base.documents(of: projection, generation: generation, after: key, limit: limit)
    }
    func dropGeneration(of projection: String, generation: Int) throws { try base.dropGeneration(of: projection, generation: generation) }
    func commit(_ changes: ViewChanges) throws { try base.commit(changes) }
}

/// A projection store that fails on chosen commits, before or after the commit takes effect,
/// as a crash of the projector's process would.
final class CrashingProjectionStore: ForwardingViewStore, @unchecked Sendable {
    // @unchecked: `plan` and `commits` are only touched by the single test thread.
    struct Crash: Error {}
    var plan: [Int: Bool] = [:]   // commit number → crash after (true) or before (false) it takes effect
    private(set) var commits = 0

    override func commit(_ changes: ViewChanges) throws {
        commits += 1
        if let after = plan[commits] {
            if after { try base.commit(changes) }
            throw Crash()
        }
        try base.commit(changes)
    }
}
