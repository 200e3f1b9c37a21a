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

    /// The application over the primary: writes, catch-ups and the fallback read.
    public let primary: Application
    /// The standby's store (opened without creating anything).
    public let replica: PostgresEventStore
    /// How long a read waits for the standby to replay a catch-up before the primary answers.
    public let maximumWait: Duration
    private let primaryStore: PostgresEventStore
    private let served = Mutex<[Source: Int]>([:])

    /// Reads through `replica` for the application over a PostgreSQL primary.
    /// - Throws: ``ApplicationError`` when the application's store is not PostgreSQL.
    public init(primary: Application, replica: PostgresEventStore, maximumWait: Duration = .milliseconds(500)) throws(ApplicationError) {
        guard let primaryStore = primary.store as? PostgresEventStore else {
            throw ApplicationError(EventStoreError.invalidInput("a read store (a PostgreSQL standby) needs a PostgreSQL primary; the store is not PostgreSQL"))
        }
        self.primary = primary
        self.replica = replica
        self.maximumWait = maximumWait
        self.primaryStore = primaryStore
    }

    /// How many reads each source answered so far (for monitoring and tests).
    public var reads: [Source: Int] { served.withLock { $0 } }

    /// A user-keyed view (favorites, recent searches, recently viewed), read-your-writes,
    /// and which server answered.
    public func view<P: Projection>(_ projection: P, user: String) throws(ApplicationError) -> (view: UserView<P.Document>, source: Source) {
        do {
            try Rules.checkIdentifier(user, field: "user id")
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
    public func details(listing: String) throws(ApplicationError) -> (details: CachedDetailsProjection.Document?, source: Source) {
        do {
            try Rules.checkIdentifier(listing, field: "listing id")
            return try document(Views.cachedDetails, key: listing)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The document for `key` as of at least the primary's head now.
    private func document<P: Projection>(_ projection: P, key: String) throws -> (P.Document?, Source) {
        let needed = try primaryStore.headPosition()
        if let found = try? replicaDocument(projection, key: key, atLeast: needed) {
            return count(found, .replica)
        }
        // Behind: catch the view up on the primary, then give the standby a bounded time to
        // replay that commit.
        try primary.projector.catchUp([projection.name])
        let commit = try primaryStore.writeAheadLogPosition()
        let clock = ContinuousClock()
        let deadline = clock.now + maximumWait
        var pause = Duration.microseconds(200)
        while clock.now < deadline {
            guard let replayed = try? replica.hasReplayed(through: commit) else { break }   // unreachable: the primary answers
            if replayed {
                if let found = try? replicaDocument(projection, key: key, atLeast: needed) {
                    return count(found, .replicaAfterWaiting)
                }
                break
            }
            Thread.sleep(forTimeInterval: Double(pause.components.attoseconds) / 1e18 + Double(pause.components.seconds))
            pause = min(pause * 2, .milliseconds(10))
        }
        return count(try primary.projector.document(projection, key: key), .primary)
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

    private func count<T>(_ value: T?, _ source: Source) -> (T?, Source) {
        served.withLock { $0[source, default: 0] += 1 }
        return (value, source)
    }
}
