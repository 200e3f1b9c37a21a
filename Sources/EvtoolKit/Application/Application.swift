import Commands
import EventLog
import Foundation
import Projections
import StorePostgres

/// The one way in for every face of evtool (the HTTP API now, the command line next): holds an
/// opened store, the command runner and the projector, records user actions and reads views.
///
/// Reads are read-your-writes: a view is caught up to the head of the log before it is read,
/// so an action that was acknowledged before the read is in it. Safe to share between threads.
public final class Application: Sendable {
    /// The store: the log, the views and their checkpoints.
    public let store: any EventStore & ProjectionStore
    /// Records user actions (load, decide, append with the expected version, retry).
    public let runner: CommandRunner
    /// How many times a command is tried under contention unless told otherwise
    /// (``CommandRunner/defaultAttempts``).
    public static let defaultWriteAttempts = CommandRunner.defaultAttempts
    /// Keeps the views current and answers reads after catching up.
    public let projector: Projector

    /// Appends gathered into shared transactions, when group commit is on.
    public let groupCommit: GroupCommitStore?

    /// Reads from a PostgreSQL hot standby, read-your-writes, when the application has a read
    /// store (``init(store:readStore:groupCommit:maximumReplicaWait:)``); nil: every read goes
    /// to ``store``.
    public let replicaReads: ReplicaReads?

    /// Users' views at past versions of their streams, kept while this process runs, so that
    /// repeated `as-of` reads of a user with a long stream fold a few events
    /// (``TimeTravel/document(_:key:asOf:in:cache:)``); at most 64 MiB (estimated) unless its
    /// ``TimeTravelCache/byteLimit`` is set.
    public let timeTravel = TimeTravelCache()

    /// Current view answers kept in memory (`evtool serve --view-memory`); off until a
    /// ``ViewMemoryFollower`` starts it. Each write this application records touches it
    /// before it is acknowledged (see ``ViewMemory``).
    public let viewMemory = ViewMemory()

    /// Makes the application over an opened store.
    /// - Parameter groupCommit: commit concurrent writes of different users together (see
    ///   ``GroupCommitStore``); needs a store that appends several streams in one transaction.
    /// - Parameter decidesOnCachedState: decide a cached user's command without reading the
    ///   stream first, the append at the cached version being the check
    ///   (``CommandRunner/decidesOnCachedState``); a long-lived server turns it on.
    /// - Parameter cachedUsers: how many users' decision states are kept between commands.
    /// - Parameter concurrentCommits: how many group commits may be in flight at once (1 for
    ///   SQLite; PostgreSQL commits transactions in parallel: ``GroupCommitStore/parallelCommits``
    ///   says how many pay).
    /// - Parameter writeAttempts (default ``defaultWriteAttempts``): how many times a command is decided and appended when other
    ///   writers keep changing the user's stream in between; after the last lost race it fails
    ///   with a conflict (``CommandRunner/maximumAttempts``).
    public convenience init(store: any EventStore & ProjectionStore, groupCommit: Bool = false,
                            decidesOnCachedState: Bool = false, cachedUsers: Int = 10_000, concurrentCommits: Int = 1,
                            writeAttempts: Int = Application.defaultWriteAttempts) {
        self.init(store: store, groupCommit: groupCommit, decidesOnCachedState: decidesOnCachedState, cachedUsers: cachedUsers,
                  concurrentCommits: concurrentCommits, writeAttempts: writeAttempts, readStore: nil, maximumReplicaWait: .zero)
    }

    /// Makes the application over a PostgreSQL primary that reads from `readStore`, a hot
    /// standby of it (opened with ``ReadStore/open(_:for:storeDescription:)``, which checks
    /// that): current views, `as-of` views, history, the log and statistics come from the
    /// standby once it has replayed what the primary had acknowledged when the read started,
    /// after a wait of at most `maximumReplicaWait`, else from the primary (``ReplicaReads``).
    /// Writes, stream versions (ETags), the head and the event stream's wake-ups stay on the
    /// primary. The other parameters are as for ``init(store:groupCommit:decidesOnCachedState:cachedUsers:concurrentCommits:writeAttempts:)``.
    public convenience init(store: PostgresEventStore, readStore: PostgresEventStore, groupCommit: Bool = false,
                            decidesOnCachedState: Bool = false, cachedUsers: Int = 10_000, concurrentCommits: Int = 1,
                            writeAttempts: Int = Application.defaultWriteAttempts, maximumReplicaWait: Duration = .milliseconds(500)) {
        self.init(store: store, groupCommit: groupCommit, decidesOnCachedState: decidesOnCachedState, cachedUsers: cachedUsers,
                  concurrentCommits: concurrentCommits, writeAttempts: writeAttempts, readStore: readStore, maximumReplicaWait: maximumReplicaWait)
    }

    private init(store: any EventStore & ProjectionStore, groupCommit: Bool, decidesOnCachedState: Bool, cachedUsers: Int,
                 concurrentCommits: Int, writeAttempts: Int, readStore: PostgresEventStore?, maximumReplicaWait: Duration) {
        self.store = store
        // Users' decision states (and their views every thousand events) are snapshotted beside
        // the views, so a user with a long stream is read from the last snapshot by a new
        // process as by this one's cache, and time travel starts from the nearest one.
        let snapshots = StoreSnapshots.of(store)
        if groupCommit, let multi = store as? any MultiStreamAppending {
            let grouped = GroupCommitStore(base: multi, maximumConcurrentCommits: concurrentCommits)
            self.groupCommit = grouped
            self.runner = CommandRunner(store: grouped, maximumAttempts: writeAttempts, cache: UserStateCache(capacity: cachedUsers),
                                        snapshots: snapshots, decidesOnCachedState: decidesOnCachedState)
        } else {
            self.groupCommit = nil
            self.runner = CommandRunner(store: store, maximumAttempts: writeAttempts, cache: UserStateCache(capacity: cachedUsers),
                                        snapshots: snapshots, decidesOnCachedState: decidesOnCachedState)
        }
        self.projector = Projector(store: store)
        if let readStore, let primary = store as? PostgresEventStore {
            self.replicaReads = ReplicaReads(primaryStore: primary, projector: projector, replica: readStore, maximumWait: maximumReplicaWait)
        } else {
            self.replicaReads = nil
        }
    }

    /// The store to read the log from now (history, `as-of` views, the log, statistics): the
    /// standby once it shows what the primary had acknowledged when this is called
    /// (``ReplicaReads/logStore()``), else (or without a read store) ``store``.
    public func storeForReading() throws -> any EventStore & ProjectionStore {
        guard let replicaReads else { return store }
        return try replicaReads.logStore().store
    }

    /// A view's current document for `key` (a user's stream id as recorded, or a listing id),
    /// read-your-writes: from the standby through ``replicaReads`` when there is a read store,
    /// else after catching the view up on ``store``.
    public func currentDocument<P: Projection>(_ projection: P, key: String) throws -> P.Document? {
        if let replicaReads { return try replicaReads.document(projection, key: key).0 }
        return try projector.document(projection, key: key)
    }

    // MARK: - Recording

    /// The event type a command records.
    public static func eventType(of command: UserCommand) -> String {
        switch command {
        case .search: return Searched.typeName
        case .favorite: return Favorited.typeName
        case .unfavorite: return Unfavorited.typeName
        case .viewDetails: return DetailsViewed.typeName
        }
    }

    /// Records one user action.
    ///
    /// A request id that was already recorded answers with the first request's outcome (its
    /// event ids, positions and version) and records nothing.
    /// - Parameter requiredVersion: the user's stream version the client decided on; the
    ///   action is recorded only at that version.
    /// - Throws: ``ApplicationError/versionMismatch(expected:actual:)`` when the stream is at
    ///   another version; ``ApplicationError/invalid(field:message:)`` for a broken rule;
    ///   the other cases for the store's failures.
    public func record(_ command: UserCommand, context: CommandContext, requiredVersion: Int64? = nil) throws(ApplicationError) -> RecordResult {
        let type = Self.eventType(of: command)
        do {
            // The ids as the runner records them (NFC): the outcome, the request's first
            // outcome and the view memory's tags name the stream that was written.
            let context = try context.normalized()
            let user = context.userID
            switch try runner.handle(command, context: context, requiredVersion: requiredVersion) {
            case let .recorded(ids, version, positions):
                touchViewMemory(command, user: user, through: positions.upperBound)
                return RecordResult(user: user, type: type, eventIDs: ids, positions: positions, streamVersion: version, unchanged: nil, isReplay: false)
            case .unchanged(.alreadyRecorded(let requestID)):
                if let first = try firstOutcome(user: user, requestID: requestID, command: command) {
                    if let positions = first.positions { touchViewMemory(command, user: user, through: positions.upperBound) }
                    return first
                }
                return RecordResult(user: user, type: type, eventIDs: [], positions: nil, streamVersion: try store.version(of: UserStream.id(for: user)),
                                    unchanged: .alreadyRecorded(requestID: requestID), isReplay: true)
            case .unchanged(let reason):
                return RecordResult(user: user, type: type, eventIDs: [], positions: nil, streamVersion: try store.version(of: UserStream.id(for: user)),
                                    unchanged: reason, isReplay: false)
            }
        } catch EventStoreError.wrongExpectedVersion(_, .exactly(let expected), let actual) where requiredVersion == expected {
            throw .versionMismatch(expected: expected, actual: actual)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The outcome of the request with `requestID`, read back from the user's stream; nil when
    /// its events are no longer there (erased).
    /// - Throws: ``ApplicationError/requestIDReused(requestID:message:)`` when the first
    ///   request recorded something other than what `command` records.
    func firstOutcome(user: String, requestID: String, command: UserCommand) throws -> RecordResult? {
        let stream = UserStream.id(for: user)
        let first = RequestIdentity.eventID(user: user, requestID: requestID, index: 0)
        var from = try store.version(of: stream)
        while from >= 1 {
            let batch = try store.read(stream: stream, from: from, direction: .backwards, limit: 1_000)
            if let hit = batch.first(where: { $0.id == first }) {
                if !Erasure.isTombstone(hit) {
                    let recorded: DomainEvent
                    do { recorded = try DomainEvent.decode(hit) } catch let error as DomainEventError { throw DomainEventError.reading(hit, error) }
                    guard try UserDecider.records(command, as: recorded) else {
                        throw ApplicationError.requestIDReused(requestID: requestID, message:
                            "request id '\(requestID)' was already used by another request of user '\(user)' (\(Self.describe(recorded))); "
                            + "nothing was recorded: a retry must repeat the same request, a new request needs a new id")
                    }
                }
                var events = [hit]
                for event in try store.read(stream: stream, from: hit.version + 1, direction: .forwards, limit: 100) {
                    guard event.id == RequestIdentity.eventID(user: user, requestID: requestID, index: events.count) else { break }
                    events.append(event)
                }
                let last = events[events.count - 1]
                return RecordResult(user: user, type: hit.type, eventIDs: events.map(\.id), positions: hit.position...last.position,
                                    streamVersion: last.version, unchanged: nil, isReplay: true)
            }
            guard let oldest = batch.last, batch.count == 1_000 else { break }
            from = oldest.version - 1
        }
        return nil
    }

    /// A recorded event in a few words, for the message of a reused request id (the action and
    /// its listing, no other payload).
    static func describe(_ event: DomainEvent) -> String {
        switch event {
        case .searched: return "a \(event.typeName)"
        case let .favorited(favorited): return "a \(event.typeName) of listing '\(favorited.listingID)'"
        case let .unfavorited(unfavorited): return "an \(event.typeName) of listing '\(unfavorited.listingID)'"
        case let .detailsViewed(viewed): return "a \(event.typeName) of listing '\(viewed.listingID)'"
        }
    }

    // MARK: - Reading

    /// A user-keyed view (favorites, recent searches, recently viewed) now, or as of a point.
    /// `user` is taken as typed (``existingUser(typed:)``): `josé` in NFD reads the NFC user.
    public func view<P: Projection>(_ projection: P, user typed: String, asOf: AsOf? = nil) throws(ApplicationError) -> UserView<P.Document> {
        do {
            let user = try existingUser(typed: typed)
            let version = try store.version(of: UserStream.id(for: user))
            if let asOf {
                try checkWithinLog(asOf)
                return UserView(document: try TimeTravel.document(projection, key: user, asOf: asOf, in: try storeForReading(), cache: timeTravel), streamVersion: version)
            }
            return UserView(document: try currentDocument(projection, key: user), streamVersion: version)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The cached details of a listing (the latest any user fetched), now or as of a point.
    /// `listing` is taken as typed (``recordedListing(_:)``).
    public func details(listing typed: String, asOf: AsOf? = nil) throws(ApplicationError) -> CachedDetailsProjection.Document? {
        do {
            let listing = try recordedListing(typed)
            if let asOf {
                try checkWithinLog(asOf)
                return try TimeTravel.document(Views.cachedDetails, key: listing, asOf: asOf, in: try storeForReading())
            }
            return try currentDocument(Views.cachedDetails, key: listing)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// A listing's details page as a user sees it: the cached details and whether the listing
    /// is one of the user's favorites now.
    public func listing(_ typed: String, for user: String) throws(ApplicationError) -> UserListing {
        let listing: String
        do { listing = try recordedListing(typed) } catch { throw ApplicationError(error) }
        let favorites = try view(Views.favorites, user: user)
        let details = try details(listing: listing)
        let isFavorite = favorites.document?.contains(listing: listing) ?? false
        return UserListing(listingID: listing, details: details, isFavorite: isFavorite, streamVersion: favorites.streamVersion)
    }

    /// One page of a user's history: the entries that pass `filter` with a position after
    /// `after`, at most `limit` of them, oldest first.
    /// `user` is taken as typed (``existingUser(typed:)``).
    public func history(user typed: String, filter: History.Filter = History.Filter(), after: Int64 = 0, limit: Int = 100) throws(ApplicationError) -> HistoryPage {
        struct PageFull: Error {}
        var entries: [History.Entry] = []
        var more = false
        do {
            let user = try userWithEvents(typed: typed)
            try checkWithinLog(filter.asOf)
            try History.forEachEntry(of: user, in: try storeForReading(), filter: filter, afterPosition: after) { entry in
                guard entry.position > after else { return }
                guard entries.count < limit else { more = true; throw PageFull() }
                entries.append(entry)
            }
        } catch is PageFull {
        } catch {
            throw ApplicationError(error)
        }
        return HistoryPage(entries: entries, nextAfter: more ? entries.last?.position : nil)
    }

    /// Events of the whole log after `position`, in position order, at most `limit`.
    public func log(after position: Int64, limit: Int) throws(ApplicationError) -> [RecordedEvent] {
        do {
            return try storeForReading().readAll(after: position, limit: limit)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// Events of one user's stream with a version after `version`, in version order, at
    /// most `limit`; `user` is taken as typed (``existingUser(typed:)``). A user with no
    /// events reads as empty.
    public func userEvents(user typed: String, after version: Int64, limit: Int) throws(ApplicationError) -> [RecordedEvent] {
        do {
            let user = try existingUser(typed: typed)
            return try storeForReading().read(stream: UserStream.id(for: user), from: version + 1, direction: .forwards, limit: limit)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// Waits up to `timeout` for an event after `position`; whether there is one.
    public func waitForEvents(after position: Int64, timeout: Duration) throws(ApplicationError) -> Bool {
        do {
            return try store.waitForEvents(after: position, timeout: timeout)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// Counts the log (reads it whole) and lists the views' checkpoints.
    public func statistics() throws(ApplicationError) -> StoreStatistics {
        do {
            return try StoreStatistics.of(storeForReading())
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The version of a user's stream (0 when the user has no events); `user` is taken as
    /// typed (``existingUser(typed:)``).
    public func streamVersion(user typed: String) throws(ApplicationError) -> Int64 {
        do {
            let user = try existingUser(typed: typed)
            return try store.version(of: UserStream.id(for: user))
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The head position: whether the store answers.
    public func headPosition() throws(ApplicationError) -> Int64 {
        do {
            return try store.headPosition()
        } catch {
            throw ApplicationError(error)
        }
    }
}
