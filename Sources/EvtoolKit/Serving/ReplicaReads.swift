import Commands
import EventLog
import Foundation
import Projections
import StorePostgres
import Synchronization

/// Reads views from a PostgreSQL hot standby (a read replica) and keeps them read-your-writes:
/// what the primary had acknowledged when a read starts is in what it returns.
///
/// A read finds the head of the primary's log, then serves the view's committed documents from
/// the standby when the standby's copy of the view has applied the log that far. When it has
/// not, the view is caught up on the primary (as a read there would), and the read waits, up to
/// ``maximumWait``, until the standby has replayed the primary's write-ahead log through that
/// commit (`pg_last_wal_replay_lsn()` against `pg_current_wal_lsn()`); if it has not by then,
/// or the standby cannot be reached, the primary answers. So a standby that lags, stops
/// replaying or goes away costs at most ``maximumWait`` per read, never a stale answer.
/// With a projector following on the primary (`evtool project --follow`), most reads are the
/// standby's alone.
///
/// Safe to share between threads.
public final class ReplicaReads: Sendable {
    /// Which server answered a read.
    public enum Source: String, Sendable {
        /// The standby's copy of the view was current enough at once.
        case replica
        /// The standby answered after replaying the primary's catch-up of the view.
        case replicaAfterWaiting = "replica-after-waiting"
        /// The primary answered: the standby lagged past the wait or could not be reached.
        case primary
    }

    /// The standby's store (opened without creating anything).
    public let replica: PostgresEventStore
    /// How long a read waits for the standby to replay a catch-up before the primary answers.
    public let maximumWait: Duration
    /// The primary's store: its head, its write-ahead log position, the fallback read.
    let primaryStore: PostgresEventStore
    /// The primary's projector: catch-ups and the fallback read of a view.
    let projector: Projector
    private let served = Mutex<[Source: Int]>([:])

    /// Reads through `replica` for the application over a PostgreSQL primary.
    /// - Throws: ``ApplicationError`` when the application's store is not PostgreSQL.
    public convenience init(primary: Application, replica: PostgresEventStore, maximumWait: Duration = .milliseconds(500)) throws(ApplicationError) {
        guard let primaryStore = primary.store as? PostgresEventStore else {
            throw ApplicationError(EventStoreError.invalidInput("a read store (a PostgreSQL standby) needs a PostgreSQL primary; the store is not PostgreSQL"))
        }
        self.init(primaryStore: primaryStore, projector: primary.projector, replica: replica, maximumWait: maximumWait)
    }

    /// Reads through `replica` for the primary `primaryStore`, catching views up with `projector`.
    init(primaryStore: PostgresEventStore, projector: Projector, replica: PostgresEventStore, maximumWait: Duration) {
        self.replica = replica
        self.maximumWait = maximumWait
        self.primaryStore = primaryStore
        self.projector = projector
    }

    /// How many reads each source answered so far (for monitoring and tests).
    public var reads: [Source: Int] { served.withLock { $0 } }

    /// A user-keyed view (favorites, recent searches, recently viewed), read-your-writes,
    /// and which server answered.
    /// `user` is taken as typed (``Commands/UserStream/existing(typed:in:)`` on the primary).
    public func view<P: Projection>(_ projection: P, user typed: String) throws(ApplicationError) -> (view: UserView<P.Document>, source: Source) {
        do {
            let user = try UserStream.existing(typed: typed, in: primaryStore)
            let version = try primaryStore.version(of: UserStream.id(for: user))
            let (document, source) = try document(projection, key: user)
            return (UserView(document: document, streamVersion: version), source)
        } catch let error as ApplicationError {
            throw error
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The cached details of a listing, read-your-writes, and which server answered.
    /// `listing` is taken as typed (in NFC, ``Commands/Rules/identifier(_:field:)``).
    public func details(listing typed: String) throws(ApplicationError) -> (details: CachedDetailsProjection.Document?, source: Source) {
        do {
            return try document(Views.cachedDetails, key: Rules.identifier(typed, field: "listing id"))
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The document for `key` as of at least the primary's head now.
    func document<P: Projection>(_ projection: P, key: String) throws -> (P.Document?, Source) {
        let needed = try primaryStore.headPosition()
        if let found = try? replicaDocument(projection, key: key, atLeast: needed) {
            return count(found, .replica)
        }
        // Behind: catch the view up on the primary, then give the standby a bounded time to
        // replay that commit.
        try projector.catchUp([projection.name])
        let commit = try primaryStore.writeAheadLogPosition()
        if waitForReplay(through: commit), let found = try? replicaDocument(projection, key: key, atLeast: needed) {
            return count(found, .replicaAfterWaiting)
        }
        return count(try projector.document(projection, key: key), .primary)
    }

    /// The store to read the log from (history, `--as-of` views, the log, statistics) so that
    /// the read shows everything the primary had acknowledged when it starts: the standby once
    /// it has replayed the primary's write-ahead log through its position now (at once, or
    /// after a wait of at most ``maximumWait``), else the primary. Costs one small query on the
    /// primary and one or more on the standby.
    /// - Throws: ``EventStoreError/unavailable(_:)`` when the primary cannot be reached.
    public func logStore() throws -> (store: PostgresEventStore, source: Source) {
        let commit = try primaryStore.writeAheadLogPosition()
        if (try? replica.hasReplayed(through: commit)) == true { return count(replica, .replica) }
        if waitForReplay(through: commit) { return count(replica, .replicaAfterWaiting) }
        return count(primaryStore, .primary)
    }

    /// Waits up to ``maximumWait`` (backing off from 0.2 ms to 10 ms) until the standby has
    /// replayed the primary's log through `commit`; false when it has not by then, or cannot
    /// be reached.
    private func waitForReplay(through commit: String) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + maximumWait
        var pause = Duration.microseconds(200)
        while clock.now < deadline {
            guard let replayed = try? replica.hasReplayed(through: commit) else { return false }   // unreachable: the primary answers
            if replayed { return true }
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(10))
        }
        return false
    }

    /// The standby's committed document for `key`, when its active generation of the view is
    /// of this projection's version and has applied the log through `position`; nil inside
    /// `.some` when the view holds no document for the key; nil when the standby's view is not
    /// current enough.
    private func replicaDocument<P: Projection>(_ projection: P, key: String, atLeast position: Int64) throws -> P.Document?? {
        func active() throws -> ProjectionStatus? {
            try replica.projectionStatuses().first { $0.name == projection.name && $0.isActive && $0.version == projection.version }
        }
        guard let status = try active(), status.position >= position else { return nil }
        let documentKey = projection.documentKey(key)
        let data = try replica.documents(of: projection.name, generation: status.generation, keys: [documentKey])[documentKey]
        // A generation is dropped only after another took its place: if this one is still the
        // active one, the documents read were its committed ones (at or after `status`).
        guard try active()?.generation == status.generation else { return nil }
        return .some(try data.map { try P.Document.decode($0) })
    }

    private func count<T>(_ value: T, _ source: Source) -> (T, Source) {
        served.withLock { $0[source, default: 0] += 1 }
        return (value, source)
    }
}
