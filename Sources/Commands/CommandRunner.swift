import EventLog
import Foundation

/// Handles users' commands against an event store: loads the user's state, decides,
/// appends with the exact expected version, and retries on a conflict.
///
/// One runner handles a user's commands one at a time, in the order they came
/// (``StreamTurns``): a server has one. Two runners (or two app servers) acting for the same
/// user at once cannot both append at the same version, so the loser reloads, sees the
/// winner's events and decides again: no action is lost and no favorite is recorded twice.
/// A request id makes a retried request record nothing new. Safe to share between threads.
public final class CommandRunner: Sendable {
    /// The store the events go to.
    public let store: any EventStore
    /// How many times a command is decided and appended before ``CommandError/conflict(user:attempts:)``.
    public let maximumAttempts: Int
    /// The tries per command unless told otherwise: 10.
    public static let defaultAttempts = 10
    /// How many events a stream grows between snapshots (when there is a snapshot store).
    public let snapshotInterval: Int64
    let cache: UserStateCache?
    /// Whether a command is decided on the cached state without reading the stream first
    /// (see ``init(store:maximumAttempts:cache:snapshots:snapshotInterval:clock:decidesOnCachedState:)``).
    public let decidesOnCachedState: Bool
    private let snapshots: (any UserSnapshotStore)?
    private let clock: @Sendable () -> Date
    /// One command at a time per user in this runner (``StreamTurns``).
    let turns = StreamTurns()
    /// The reads of users not held yet, made together when threads need them at once.
    let loads = LoadGroup()

    /// Makes a runner.
    /// - Parameters:
    ///   - store: the event store.
    ///   - maximumAttempts: tries per command under contention (at least 1).
    ///   - cache: users' states kept between commands in this process; nil reads every stream
    ///     (from its snapshot, if any) each time.
    ///   - snapshots: where users' states are kept across processes; nil keeps none.
    ///   - snapshotInterval: how many events a stream grows between snapshots (at least 1).
    ///   - clock: the app server's clock, for ``EventMetadata/handledAt``.
    ///   - decidesOnCachedState: decide a command on the user's cached state and append it at
    ///     the cached version without reading the stream first (one store round trip instead of
    ///     two). The append's exact expected version is the check: when another writer appended
    ///     meanwhile, it fails and the command is decided again on the stream as read. A decision
    ///     that records nothing, or an `If-Match` version other than the cached one, is checked
    ///     against the stream before it is answered. Off (the default), every command reads the
    ///     events since the cached state first, and checks the last one's id and chain hash.
    public init(
        store: any EventStore, maximumAttempts: Int = defaultAttempts, cache: UserStateCache? = UserStateCache(),
        snapshots: (any UserSnapshotStore)? = nil, snapshotInterval: Int = 100,
        clock: @escaping @Sendable () -> Date = { Timestamp.now() },
        decidesOnCachedState: Bool = false
    ) {
        self.store = store
        self.maximumAttempts = max(1, maximumAttempts)
        self.cache = cache
        self.snapshots = snapshots
        self.snapshotInterval = Int64(max(1, snapshotInterval))
        self.clock = clock
        self.decidesOnCachedState = decidesOnCachedState && cache != nil
    }

    /// Handles one command for the user in `context`.
    ///
    /// Waits for the user's commands that came before it in this runner to end first.
    ///
    /// Cost: one read of the events appended since the cached state and of the last one it
    /// holds (the whole stream the first time a user is seen, or after the user was erased,
    /// decoding only `Favorited`/`Unfavorited` payloads), one encode, one append; more under
    /// contention. With ``decidesOnCachedState`` and the user cached: one append, no read.
    /// - Returns: what was recorded, or why nothing was.
    /// - Throws: ``CommandError/rejected(field:rule:)`` for a command that breaks a rule,
    ///   ``CommandError/conflict(user:attempts:)`` when other writers kept winning,
    ///   ``EventStoreError/outcomeUnknown(_:)`` when the last try's outcome was lost too,
    ///   ``DomainEventError`` when the stream holds a `Favorited` or `Unfavorited` this release
    ///   cannot read (tombstones and unknown types are skipped: ``UserDecider/evolve(_:recorded:)``),
    ///   ``EventStoreError/wrongExpectedVersion(stream:expected:actual:)`` when `requiredVersion`
    ///   is given and the stream is at another version (nothing is retried then),
    ///   and the store's ``EventStoreError``s.
    /// - Parameter requiredVersion: the stream version the client decided on (an HTTP
    ///   `If-Match`); nil decides on whatever the stream holds and retries on a conflict.
    ///   A request id already recorded answers `alreadyRecorded` whatever the version.
    public func handle(_ command: UserCommand, context: CommandContext, requiredVersion: Int64? = nil) throws -> CommandOutcome {
        // The one boundary where ids take their recorded form (NFC): every face of evtool
        // (command line, app servers, simulator) comes through here.
        let context = try context.normalized()
        let user = context.userID
        let stream = UserStream.id(for: user)
        let commandID = Self.commandID(context)
        // The user's commands before this one in this runner end first: this one is decided
        // on the state they left, and races only other writers (other servers, processes).
        turns.wait(stream)
        defer { turns.end(stream) }
        var proposed: [ProposedEvent] = []
        var proposedFor: [DomainEvent] = []
        var trustsSnapshot = true

        for attempt in 1...maximumAttempts {
            // The first try may decide on the cached state alone (no read); its append at the
            // cached version is then the check that the state was current.
            var fromCache = false
            var loaded: LoadedUser
            if attempt == 1, let cached = cachedForDeciding(stream: stream) {
                loaded = cached
                fromCache = true
            } else {
                loaded = try load(stream: stream, trustsSnapshot: trustsSnapshot)
            }
            var events: [DomainEvent] = []
            deciding: while true {
                if let requestID = context.requestID,
                   loaded.recentEventIDs.contains(RequestIdentity.eventID(user: user, requestID: requestID, index: 0)) {
                    return .unchanged(.alreadyRecorded(requestID: requestID))
                }
                if let requiredVersion, loaded.version != requiredVersion {
                    // A cached state may be behind the version the client saw: read the stream.
                    if fromCache { loaded = try load(stream: stream, trustsSnapshot: trustsSnapshot); fromCache = false; continue deciding }
                    throw EventStoreError.wrongExpectedVersion(stream: stream, expected: .exactly(requiredVersion), actual: loaded.version)
                }
                switch try UserDecider.decision(command, state: loaded.state) {
                case .unchanged(let reason):
                    // No append checks a decision to record nothing: check it on the stream.
                    if fromCache { loaded = try load(stream: stream, trustsSnapshot: trustsSnapshot); fromCache = false; continue deciding }
                    return .unchanged(reason)
                case .record(let decided): events = decided
                }
                break deciding
            }
            if events != proposedFor {   // encode once; again only if a reload changed the decision
                proposed = try propose(events, context: context, commandID: commandID)
                proposedFor = events
            }
            do {
                let result = try store.append(proposed, to: stream, expectedVersion: .exactly(loaded.version))
                for (event, recorded) in zip(events, proposed) {
                    loaded.state = UserDecider.evolve(loaded.state, event)
                    loaded.remember(recorded.id)
                }
                loaded.version = result.streamVersion
                loaded.endsWithTombstone = false
                loaded.lastEventHash = ""   // read with the next load, before a snapshot is saved
                saveSnapshotIfDue(&loaded, stream: stream)
                cache?.keep(loaded, stream: stream)
                return .recorded(eventIDs: proposed.map(\.id), streamVersion: result.streamVersion, positions: result.positions)
            } catch EventStoreError.wrongExpectedVersion(_, _, let actual) {
                if let requiredVersion {
                    cache?.forget(stream: stream)
                    throw EventStoreError.wrongExpectedVersion(stream: stream, expected: .exactly(requiredVersion), actual: actual)
                }
                if actual < loaded.version {   // the cache or snapshot is not of this log: read it whole
                    cache?.forget(stream: stream)
                    trustsSnapshot = false
                }
                if attempt < maximumAttempts {
                    backOff(attempt: attempt)
                } else {
                    // Giving up: the kept state is behind the stream, and the next command must
                    // not decide on it again (with one attempt, no later try would reload it).
                    cache?.forget(stream: stream)
                }
            } catch EventStoreError.duplicateEventID(let id) where context.requestID != nil && proposed.contains(where: { $0.id == id }) {
                return .unchanged(.alreadyRecorded(requestID: context.requestID!))
            } catch EventStoreError.outcomeUnknown(let reason) where context.requestID != nil {
                // The ids are stable, so trying again either finds the events or appends them once.
                // When the last try's outcome is lost too, say so: it was no concurrency conflict.
                guard attempt < maximumAttempts else { throw EventStoreError.outcomeUnknown(reason) }
                backOff(attempt: attempt)
            }
        }
        throw CommandError.conflict(user: user, attempts: maximumAttempts)
    }

    /// The id of the command in `context` (normalized): stable for a request id, else new.
    static func commandID(_ context: CommandContext) -> UUID {
        context.requestID.map { RequestIdentity.commandID(user: context.userID, requestID: $0) } ?? UUID.timeOrdered()
    }

    /// The events a decision records, encoded with their metadata; a request id makes their
    /// ids stable (``RequestIdentity``).
    func propose(_ events: [DomainEvent], context: CommandContext, commandID: UUID) throws -> [ProposedEvent] {
        let user = context.userID
        let metadata = try EventMetadata(
            userID: user, occurredAt: context.occurredAt, handledAt: clock(),
            correlationID: context.correlationID ?? commandID.lowercaseString,
            causationID: context.causationID ?? commandID.lowercaseString,
            source: context.source, requestID: context.requestID
        ).encoded()
        return try events.enumerated().map { index, event in
            let (type, data) = try event.encode()
            let id = context.requestID.map { RequestIdentity.eventID(user: user, requestID: $0, index: index) } ?? UUID.timeOrdered()
            return ProposedEvent(id: id, type: type, data: data, metadata: metadata)
        }
    }

    /// The cached state a command may be decided on without a read (``decidesOnCachedState``),
    /// unless a snapshot is due (the load that saves it reads the stream).
    func cachedForDeciding(stream: String) -> LoadedUser? {
        guard decidesOnCachedState, let cached = cache?.loaded(stream: stream) else { return nil }
        if snapshots != nil, cached.version - cached.snapshotVersion >= snapshotInterval { return nil }
        return cached
    }

    /// A user's decision state now: the cached state brought up to date with the events since.
    ///
    /// Cost: O(events since the cached version or the latest snapshot); the whole stream when neither.
    /// A user not cached takes one round trip for the snapshot and the events after it when the
    /// snapshot store reads them together (``UserSnapshotStreamReading``: PostgreSQL), two otherwise.
    /// - Throws: ``DomainEventError`` for an event this release cannot read; the store's errors.
    public func load(user: String) throws -> LoadedUser {
        try load(stream: UserStream.id(for: Rules.userID(user)))
    }

    func load(stream: String, trustsSnapshot: Bool = true) throws -> LoadedUser {
        var loaded: LoadedUser
        // The first batch of events, when the snapshot store read it with the snapshot.
        var prefetched: [RecordedEvent]?
        if let cached = cache?.loaded(stream: stream) {
            loaded = cached
        } else if trustsSnapshot, let reading = snapshots as? any UserSnapshotStreamReading,
                  let read = try reading.readsUsersTogether ? loads.read(stream, limit: 1_000, from: reading)
                                                            : reading.latestSnapshotAndEvents(stream: stream, limit: 1_000) {
            // One round trip for the snapshot and the events from its version (PostgreSQL),
            // shared with the other users read at the same time (``LoadGroup``); they are
            // checked below exactly as if read apart.
            if let snapshot = read.snapshot, snapshot.version == read.from {
                loaded = snapshot.loaded
                prefetched = read.events
            } else {
                loaded = LoadedUser()   // no usable snapshot: the stream from its start
                prefetched = read.from == 1 ? read.events : nil
            }
        } else if trustsSnapshot, let snapshot = try? snapshots?.latestSnapshot(stream: stream) {
            loaded = snapshot.loaded   // an unreadable snapshot is skipped: the stream is the truth
        } else {
            loaded = LoadedUser()
        }
        var changed = false
        // A kept state (cache or snapshot) is checked against the event it ends with, read
        // again with the events since. It must be there, with the id (and the chain hash, which
        // covers the stream id and every event before it) the state was folded from: otherwise
        // the state is not of this stream in this log (a store restored from a backup, a
        // document copied or changed) and the stream is folded from its start. If that event
        // became a tombstone, the user was erased after the state was kept, and it still holds
        // what was erased (an erasure covers the whole stream as it then was): the same.
        var checksLast = loaded.version > 0
        var from = max(loaded.version, 1)
        var archiveConsulted = false
        while true {
            let batch: [RecordedEvent]
            if let events = prefetched {
                batch = events
                prefetched = nil
            } else {
                batch = try store.read(stream: stream, from: from, direction: .forwards, limit: 1_000)
            }
            var events = batch[...]
            // Folding from the start, and the stream does not start at version 1 (or has no
            // events): its first events may be archived; carry on from the state the store
            // kept at the boundary (docs/explanation/audit.md "Archives").
            if !checksLast, !archiveConsulted, loaded.version == 0, events.first?.version != 1 {
                archiveConsulted = true
                if let archived = try LoadedUser.archived(stream: stream, in: store) {
                    loaded = archived
                    changed = true
                    from = loaded.version + 1
                    continue
                }
                if let first = events.first {
                    throw EventStoreError.corrupt("stream '\(stream)' starts at version \(first.version), and the store records no archive of its first events")
                }
            }
            if checksLast {
                checksLast = false
                let first = events.first
                let fits = first.map { first in
                    first.version == loaded.version && first.id == loaded.recentEventIDs.last
                        && (loaded.lastEventHash.isEmpty || first.hash == loaded.lastEventHash)
                        && !(Erasure.isTombstone(first) && !loaded.endsWithTombstone)
                } ?? false
                guard let first, fits else {
                    cache?.forget(stream: stream)
                    loaded = LoadedUser()
                    changed = true
                    from = 1
                    continue
                }
                loaded.lastEventHash = first.hash
                events = events.dropFirst()
            }
            for recorded in events {
                loaded.state = try UserDecider.evolve(loaded.state, recorded: recorded)
                loaded.remember(recorded.id)
                loaded.version = recorded.version
                loaded.endsWithTombstone = Erasure.isTombstone(recorded)
                loaded.lastEventHash = recorded.hash
                changed = true
            }
            if batch.count < 1_000 { break }
            from = loaded.version + 1
        }
        saveSnapshotIfDue(&loaded, stream: stream)
        if changed { cache?.keep(loaded, stream: stream) }
        return loaded
    }

    /// Saves a snapshot when the stream has grown by ``snapshotInterval`` since the last one.
    /// A failure is ignored: a snapshot only saves reading time.
    private func saveSnapshotIfDue(_ loaded: inout LoadedUser, stream: String) {
        guard let snapshots, loaded.version - loaded.snapshotVersion >= snapshotInterval, !loaded.lastEventHash.isEmpty else { return }
        if (try? snapshots.save(UserSnapshot(loaded), stream: stream)) != nil {
            loaded.snapshotVersion = loaded.version
        }
    }

    /// Waits a little, longer after each lost race and with jitter, so racing writers spread out.
    private func backOff(attempt: Int) {
        let ceiling = min(50 << min(attempt, 8), 10_000)   // microseconds
        Thread.sleep(forTimeInterval: Double(Int.random(in: 0...ceiling)) / 1_000_000)
    }
}
