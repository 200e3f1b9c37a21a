import EventLog
import Foundation
import Synchronization

/// Keeps views up to date from the log: catches up from checkpoints, rebuilds a view beside
/// the old one and swaps it in, and answers reads after catching up (read-your-writes).
///
/// Each batch of view changes is committed with its checkpoint in one transaction, so a
/// crash at any point neither applies an event twice nor skips one. Two projectors on one
/// store stay correct: a commit whose checkpoint moved underneath it is refused and redone.
public final class Projector: @unchecked Sendable {
    // @unchecked: every use of the mutable state below holds `lock`.
    /// The store holding the log, the views and their checkpoints.
    public let store: any EventStore & ProjectionStore
    /// Events read per batch while catching up.
    public let batchSize: Int
    /// Seconds between commits of a generation that is being built (it is invisible to
    /// readers, so committing rarely costs nothing but the work redone after a crash; a
    /// rebuild stopped through its progress handler commits what it applied first). Each such
    /// commit rewrites every document changed since the one before, which the final commit
    /// writes again: 60 s by default, so that a rebuild of a few million events commits once.
    public let rebuildCommitInterval: TimeInterval
    private let lock = NSLock()
    private var workers: [String: any AnyProjectionWorker] = [:]
    private let makers: [(name: String, make: (ProjectionStatus) -> any AnyProjectionWorker, version: Int)]
    /// Events whose payload no view could read, since this projector started.
    public private(set) var undecodableEvents = 0
    /// Per view, the active generation and the checkpoint its committed documents reflect, as
    /// of the last catch-up: what ``document(_:key:atLeast:)`` reads without `lock`. A view is
    /// taken out of it before a commit swaps its generation.
    private let readable = Mutex<[String: ReadableView]>([:])
    /// Catch-ups run for readers whose view was behind the position they needed.
    private let readerCatchUps = Atomic<Int>(0)
    /// Where the time of the last catch-up or rebuild went (read holding `lock`).
    private var phases = CatchUpPhases()

    /// Makes a projector for `projections` (by default every view of the domain).
    public init(store: any EventStore & ProjectionStore, projections: [any Projection] = Views.all,
                batchSize: Int = 1_000, rebuildCommitInterval: TimeInterval = 60) {
        self.store = store
        self.batchSize = batchSize
        self.rebuildCommitInterval = rebuildCommitInterval
        self.makers = projections.map { projection in
            Self.maker(for: projection, store: store)
        }
    }

    private static func maker<P: Projection>(for projection: P, store: any ProjectionStore)
        -> (name: String, make: (ProjectionStatus) -> any AnyProjectionWorker, version: Int) {
        (projection.name, { status in ProjectionWorker(projection: projection, store: store, status: status, cacheLimit: 50_000) }, projection.version)
    }

    /// The names of the projections this projector drives.
    public var names: [String] { makers.map(\.name) }

    // MARK: - Catching up

    /// Brings every view (or those named) up to the head of the log. A view that does not exist
    /// yet, or whose code version changed, is built in a new generation and swapped in.
    /// - Parameter progress: called after each batch with the lowest checkpoint and the head.
    /// - Returns: the head position the views reached.
    @discardableResult
    public func catchUp(_ names: [String]? = nil, progress: (Int64, Int64) throws -> Void = { _, _ in }) throws -> Int64 {
        try lock.withLock {
            defer { publish() }
            return try run(names, selected: try prepareWorkers(names), progress: progress)
        }
    }

    /// `names` with each view once, in the order first named (a view named twice is rebuilt once).
    public static func distinct(_ names: [String]?) -> [String]? {
        guard let names else { return nil }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }

    /// Rebuilds views from position 0 in new generations while readers keep the old ones, then
    /// swaps each in at once. A rebuild that was interrupted (its generation is still
    /// building) is resumed from its last commit rather than started again.
    /// - Parameter progress: called after each batch with the lowest checkpoint and the head;
    ///   throwing from it stops the rebuild at that batch boundary.
    @discardableResult
    public func rebuild(_ names: [String]? = nil, progress: (Int64, Int64) throws -> Void = { _, _ in }) throws -> Int64 {
        try lock.withLock {
            defer { publish() }
            let wanted = Self.distinct(names) ?? self.names
            for name in wanted {
                guard let maker = makers.first(where: { $0.name == name }) else {
                    throw EventStoreError.invalidInput("no view named '\(name)'; views: \(self.names.joined(separator: ", "))")
                }
                let building = try store.projectionStatuses().filter { $0.name == name && !$0.isActive }
                if let resumable = building.filter({ $0.version == maker.version }).max(by: { $0.generation < $1.generation }) {
                    workers[name] = maker.make(resumable)
                    continue
                }
                for stale in building { try store.dropGeneration(of: name, generation: stale.generation) }
                let status = try store.startGeneration(of: name, version: maker.version)
                workers[name] = maker.make(status)
            }
            return try run(wanted, selected: wanted.compactMap { workers[$0] }, progress: progress)
        }
    }

    /// Finds or starts the generation each selected projection should advance.
    private func prepareWorkers(_ names: [String]?) throws -> [any AnyProjectionWorker] {
        let wanted = names ?? self.names
        var statuses: [ProjectionStatus]?
        var selected: [any AnyProjectionWorker] = []
        for name in wanted {
            guard let maker = makers.first(where: { $0.name == name }) else {
                throw EventStoreError.invalidInput("no view named '\(name)'; views: \(self.names.joined(separator: ", "))")
            }
            if let worker = workers[name] { selected.append(worker); continue }
            if statuses == nil { statuses = try store.projectionStatuses() }
            let mine = statuses!.filter { $0.name == name }
            let status: ProjectionStatus
            if let building = mine.filter({ !$0.isActive && $0.version == maker.version }).max(by: { $0.generation < $1.generation }) {
                status = building   // resume an interrupted rebuild
            } else if let active = mine.first(where: { $0.isActive && $0.version == maker.version }) {
                status = active
            } else {
                for stale in mine where !stale.isActive { try store.dropGeneration(of: name, generation: stale.generation) }
                status = try store.startGeneration(of: name, version: maker.version)
            }
            let worker = maker.make(status)
            workers[name] = worker
            selected.append(worker)
        }
        return selected
    }

    /// Reads the log once for all `selected` workers, from the lowest checkpoint to the head.
    /// When another projector moved a checkpoint (or swapped in a generation of its own), the
    /// generations are chosen again from the store and the work goes on from there.
    private func run(_ names: [String]?, selected: [any AnyProjectionWorker], progress: (Int64, Int64) throws -> Void) throws -> Int64 {
        var selected = selected
        var attempts = 0
        while true {
            do {
                return try advance(selected, progress: progress)
            } catch is ProjectionStoreError where attempts < 10 {
                attempts += 1
                for worker in selected { workers[worker.name] = nil }
                selected = try prepareWorkers(names)
            }
        }
    }

    private func advance(_ selected: [any AnyProjectionWorker], progress: (Int64, Int64) throws -> Void) throws -> Int64 {
        guard !selected.isEmpty else { return try store.headPosition() }
        var head = try store.headPosition()
        var cursor = selected.map(\.position).min()!
        var nextBuildingCommit = Date().addingTimeInterval(rebuildCommitInterval)
        // A long catch-up reads and decodes the next batch on a second thread while this one
        // applies the current batch; a short one (a read after a command) stays on this thread.
        var prefetcher: BatchPrefetcher?
        var clock = PhaseClock()
        phases = CatchUpPhases()
        let encodingBefore = selected.reduce(0.0) { $0 + $1.encodingSeconds }
        defer {
            if let prefetcher {
                prefetcher.stop()
                phases.readingAhead += prefetcher.busySeconds
            }
            phases.encoding = selected.reduce(0.0) { $0 + $1.encodingSeconds } - encodingBefore
        }
        while true {
            let batch: DecodedBatch
            if let running = prefetcher {
                batch = try running.next()
            } else {
                batch = try Self.readBatch(from: store, after: cursor, limit: batchSize)
                if batch.count == batchSize, let last = batch.lastPosition {
                    prefetcher = BatchPrefetcher(store: store, after: last, batchSize: batchSize)
                }
            }
            phases.waitingForBatches += clock.lap()
            undecodableEvents += batch.undecodable
            guard let last = batch.lastPosition else {
                if let running = prefetcher {
                    running.stop()
                    phases.readingAhead += running.busySeconds
                }
                prefetcher = nil
                // At the head: commit everything, swapping in generations that were building.
                for worker in selected {
                    // Readers of the generation this commit retires go through the lock from now on.
                    if !worker.status.isActive { _ = readable.withLock { $0.removeValue(forKey: worker.name) } }
                    try worker.commit(activate: !worker.status.isActive)
                }
                phases.finalCommit += clock.lap()
                let newHead = try store.headPosition()
                if newHead <= cursor { return cursor }
                head = newHead
                _ = clock.lap()
                continue
            }
            for worker in selected { try worker.apply(batch.events, through: last) }
            phases.applying += clock.lap()
            phases.batches += 1
            cursor = last
            // Active views commit every batch (readers see progress); a building generation
            // is invisible to readers, so it commits every few seconds, which is much faster.
            // Such a commit rewrites every document changed since the last one, so the next
            // waits at least four times as long as this one took: commits stay ≤ 20% of the work.
            let commitBuilding = Date() >= nextBuildingCommit
            let started = Date()
            for worker in selected where worker.status.isActive || commitBuilding {
                try worker.commit(activate: false)
            }
            if commitBuilding {
                let took = Date().timeIntervalSince(started)
                nextBuildingCommit = Date().addingTimeInterval(max(rebuildCommitInterval, 4 * took))
            }
            phases.committing += clock.lap()
            if let prefetcher { prefetcher.recycle(consume batch) }
            do {
                try progress(cursor, max(head, cursor))
                _ = clock.lap()
            } catch {
                // Stopped at a batch boundary (Ctrl-C): the generations being built keep what
                // was applied, so the next rebuild resumes from here, not from the last commit.
                for worker in selected where !worker.status.isActive { try worker.commit(activate: false) }
                throw error
            }
        }
    }

    /// Reads and decodes the next batch of the log, counting the events that concern views
    /// but could not be read. The store lends each payload; only what views keep is copied.
    static func readBatch(from store: any EventStore, after position: Int64, limit: Int) throws -> DecodedBatch {
        var none: [ViewEvent] = []
        return try readBatch(from: store, after: position, limit: limit, reusing: &none)
    }

    /// ``readBatch(from:after:limit:)`` into the storage of `events` (an applied batch's),
    /// which it takes, leaving `events` empty.
    static func readBatch(from store: any EventStore, after position: Int64, limit: Int, reusing events: inout [ViewEvent]) throws -> DecodedBatch {
        var batch = DecodedBatch.empty
        swap(&batch.events, &events)
        batch.events.removeAll(keepingCapacity: true)
        batch.events.reserveCapacity(limit)
        batch.count = try store.scanAll(after: position, limit: limit) { lent in
            if let event = ViewEvent.decode(lent) {
                batch.events.append(event)
            } else if Views.concernsViews(lent.type) {
                batch.undecodable += 1
            }
            batch.lastPosition = lent.position
        }
        return batch
    }

    // MARK: - Reading

    /// The current document of a view for `key`, after making sure that view has applied the
    /// log through `position` (by default the head of the log, read now), so a command that
    /// returned before this call is included.
    ///
    /// Reads do not take the projector's lock while the view is caught up far enough: they read
    /// the committed documents of the active generation directly, concurrently with each other
    /// and with a rebuild in progress. A view that is behind is caught up once, under the lock,
    /// by the first reader that finds it behind; readers that needed no more than that wait for
    /// it and do not run it again.
    /// - Parameter key: a user's stream id for views keyed by user, a listing id otherwise
    ///   (filed under ``Projection/documentKey(_:)``, by the identity rule of ``ViewKey``).
    /// - Parameter position: the log position the document must reflect at least; nil: the head.
    public func document<P: Projection>(_ projection: P, key: String, atLeast position: Int64? = nil) throws -> P.Document? {
        let name = projection.name
        guard makers.contains(where: { $0.name == name }) else {
            throw EventStoreError.invalidInput("no view named '\(name)'; views: \(self.names.joined(separator: ", "))")
        }
        let target = try position ?? store.headPosition()
        let documentKey = projection.documentKey(key)
        for _ in 0..<3 {
            var view = readable.withLock { $0[name] }
            if view == nil || view!.position < target {
                try lock.withLock {
                    if let current = readable.withLock({ $0[name] }), current.position >= target { return }
                    readerCatchUps.add(1, ordering: .relaxed)
                    defer { publish() }
                    try takeUpStoredCheckpoint(name)
                    _ = try run([name], selected: try prepareWorkers([name]), progress: { _, _ in })
                }
                view = readable.withLock { $0[name] }
            }
            guard let view else { break }
            let document = try store.documents(of: name, generation: view.generation, keys: [documentKey])[documentKey]
            // A swap that retired this generation while it was read: read again.
            guard readable.withLock({ $0[name]?.generation }) == view.generation else { continue }
            return try document.map { try P.Document.decode($0) }
        }
        // The view keeps being swapped under the reader: read under the lock.
        return try lock.withLock {
            defer { publish() }
            _ = try run([name], selected: try prepareWorkers([name]), progress: { _, _ in })
            guard let worker = workers[name] as? ProjectionWorker<P> else { return nil }
            return try worker.document(for: documentKey)
        }
    }

    /// When another projector (`evtool serve`'s view follower, `project --follow`) committed
    /// this one's active generation of `name` further than this one got, starts from that
    /// checkpoint instead of applying the same events again only to find its commit refused.
    /// Call holding `lock`.
    private func takeUpStoredCheckpoint(_ name: String) throws {
        guard let worker = workers[name], worker.status.isActive else { return }
        let stored = try store.projectionStatuses().first { $0.name == name && $0.generation == worker.status.generation }
        if let stored, stored.position > worker.position { try worker.reload() }
    }

    /// Where the time of the last catch-up or rebuild went (for the benchmarks).
    public var lastPhases: CatchUpPhases { lock.withLock { phases } }

    /// How many catch-ups readers ran because their view was behind (each one served every
    /// reader waiting for it).
    public var catchUpsForReaders: Int { readerCatchUps.load(ordering: .relaxed) }

    /// Makes what the active workers committed readable without the lock (call holding `lock`).
    private func publish() {
        let views = workers.values.filter { $0.status.isActive }.map { ($0.name, ReadableView(generation: $0.status.generation, position: $0.status.position)) }
        readable.withLock { readable in
            for (name, view) in views { readable[name] = view }
        }
    }

    /// Every generation's status as the store has it.
    public func statuses() throws -> [ProjectionStatus] {
        try store.projectionStatuses()
    }
}

/// A view's active generation and the checkpoint of its committed documents.
private struct ReadableView: Sendable {
    var generation: Int
    var position: Int64
}
