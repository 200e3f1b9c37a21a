import EventLog
import Foundation

/// An event store that commits concurrent appends together: while one transaction is being
/// committed, the appends that arrive wait, and the next commit takes them all in one
/// transaction (one disk flush for the lot), so durable writes are not capped by one flush per
/// request. Reads go straight to the base store.
///
/// Each append keeps its own expected-version check (inside the shared transaction) and its own
/// outcome: an append whose check fails, or whose event id is a duplicate, is taken out and
/// gets its own error while the rest are committed without it; when the shared commit fails in
/// a way that names no single append, each is committed on its own instead.
///
/// Commits run on a few threads of the store's own (at most ``maximumConcurrentCommits`` + 1,
/// started when appends arrive and ended after half a second without any): one more than may
/// commit at once, so that one answers the appends it committed while another commits the
/// next group. An append waits as a continuation (``append(_:to:expectedVersion:completion:)``)
/// or, through the synchronous ``append(_:to:expectedVersion:)``, on its own semaphore: only
/// the appends a commit carried are woken when it ends.
public final class GroupCommitStore: EventStore, AsynchronousAppending, @unchecked Sendable {
    // @unchecked: `queue`, `committing`, `streamsInFlight`, the thread counts and the counters
    // are used only under `condition`; a `Pending`'s result is written by the one thread that
    // commits it, before its completion is called.
    /// The store the events go to.
    public let base: any MultiStreamAppending
    /// The most appends one transaction takes.
    public let maximumBatch: Int
    /// The most transactions committing at once (1 for SQLite's one writer; more for a server
    /// that commits transactions in parallel, like PostgreSQL).
    public let maximumConcurrentCommits: Int
    private let condition = NSCondition()
    private var queue: [Pending] = []
    private var committing = 0
    /// The streams of the transactions committing now: a stream's next append waits for them,
    /// so that its version check is against the stream as they leave it.
    private var streamsInFlight = Set<String>()
    /// Committing threads alive, and those of them waiting for work.
    private var committers = 0
    private var idleCommitters = 0
    private var commitCount = 0
    private var appendCount = 0
    /// How long a committing thread with nothing to do waits before it ends.
    static let idleSeconds = 0.5
    /// How many transactions to commit at once on a store that commits in parallel
    /// (PostgreSQL). Its batched append costs it mostly per call, so fewer, larger groups
    /// answer more writes: with `wrk -c64` PUTs to `evtool serve` on 2 cores, 2 at once answered
    /// 1.2–1.7× the writes of 8 at once, at 0.5–0.6× the p99 (groups of 13 appends instead of
    /// 3; 1 at once, 24). Two, not one, so that a commit waiting for a lock another server
    /// holds does not hold up every write.
    public static let parallelCommits = 2

    private final class Pending {
        let part: StreamAppend
        let completion: @Sendable (Result<AppendResult, any Error>) -> Void
        var result: Result<AppendResult, any Error>?
        init(_ part: StreamAppend, _ completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
            self.part = part
            self.completion = completion
        }
    }

    /// Where a synchronous append's outcome is handed to the thread waiting for it.
    private final class Outcome: @unchecked Sendable {
        // @unchecked: written before `done` is signalled, read after it was waited for.
        var result: Result<AppendResult, any Error>?
        let done = DispatchSemaphore(value: 0)
    }

    /// Wraps a store that appends several streams in one transaction.
    /// - Parameter maximumConcurrentCommits: how many transactions may commit at once (at least
    ///   1); each takes what queued while the others commit.
    public init(base: any MultiStreamAppending, maximumBatch: Int = 256, maximumConcurrentCommits: Int = 1) {
        self.base = base
        self.maximumBatch = max(1, maximumBatch)
        self.maximumConcurrentCommits = max(1, maximumConcurrentCommits)
    }

    /// Transactions committed and appends they carried so far (appends / commits is the
    /// mean group size).
    public var statistics: (commits: Int, appends: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (commitCount, appendCount)
    }

    /// Appends `events` in the next group commit with the appends of other threads; returns when it is durable.
    /// Never call it from a completion of ``append(_:to:expectedVersion:completion:)``.
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        let outcome = Outcome()
        submit(Pending(StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events)) { result in
            outcome.result = result
            outcome.done.signal()
        })
        outcome.done.wait()
        guard let result = outcome.result else { throw EventStoreError.corrupt("a group commit ended without the append's outcome") }
        return try result.get()
    }

    /// Appends `events` in the next group commit and calls `completion` on the committing
    /// thread once it is durable, or failed (see ``AsynchronousAppending``).
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion,
                       completion: @escaping @Sendable (Result<AppendResult, any Error>) -> Void) {
        submit(Pending(StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events), completion))
    }

    private func submit(_ pending: Pending) {
        condition.lock()
        queue.append(pending)
        wakeCommitter()
        condition.unlock()
    }

    /// Wakes a waiting committing thread, or starts one when none waits and fewer than
    /// ``maximumConcurrentCommits`` + 1 run. Called under `condition`.
    private func wakeCommitter() {
        if idleCommitters > 0 {
            condition.signal()
        } else if committers < maximumConcurrentCommits + 1 {
            committers += 1
            let thread = Thread { [self] in commitLoop() }
            thread.name = "evtool-commit"
            thread.start()
        }
    }

    /// A committing thread: takes what is queued (one append per stream, none of a stream
    /// another transaction is committing, so each check is against the stream as the earlier
    /// commits left it), commits it, lets another thread take the next group, then answers
    /// the appends it committed; ends when there was nothing to do for ``idleSeconds``.
    private func commitLoop() {
        condition.lock()
        while true {
            if committing < maximumConcurrentCommits, let taken = takeBatch() {
                let (batch, streams) = taken
                committing += 1
                condition.unlock()
                let transactions = commit(batch)
                condition.lock()
                committing -= 1
                commitCount += transactions
                appendCount += batch.count
                streamsInFlight.subtract(streams)
                if !queue.isEmpty { wakeCommitter() }
                condition.unlock()
                for pending in batch {
                    pending.completion(pending.result ?? .failure(EventStoreError.corrupt("a group commit ended without the append's outcome")))
                }
                condition.lock()
                continue
            }
            idleCommitters += 1
            let woken = condition.wait(until: Date(timeIntervalSinceNow: Self.idleSeconds))
            idleCommitters -= 1
            if !woken, queue.isEmpty {
                committers -= 1
                condition.unlock()
                return
            }
        }
    }

    /// The next group and its streams, taken out of the queue; nil when nothing can go now.
    /// Called under `condition`.
    private func takeBatch() -> ([Pending], Set<String>)? {
        guard !queue.isEmpty else { return nil }
        var batch: [Pending] = []
        var streams = Set<String>()
        var rest: [Pending] = []
        for candidate in queue {
            if batch.count < maximumBatch, !streamsInFlight.contains(candidate.part.stream), streams.insert(candidate.part.stream).inserted {
                batch.append(candidate)
            } else {
                rest.append(candidate)
            }
        }
        guard !batch.isEmpty else { return nil }
        queue = rest
        streamsInFlight.formUnion(streams)
        return (batch, streams)
    }

    /// Commits `batch`, setting each one's result; returns the transactions it took.
    private func commit(_ batch: [Pending]) -> Int {
        var remaining = batch
        var transactions = 0
        while !remaining.isEmpty {
            transactions += 1
            do {
                let results = try base.append(remaining.map(\.part))
                for (pending, result) in zip(remaining, results) { pending.result = .success(result) }
                return transactions
            } catch let error as EventStoreError {
                let culprit: Int?
                switch error {
                case let .wrongExpectedVersion(stream, _, _): culprit = remaining.firstIndex { $0.part.stream == stream }
                case let .duplicateEventID(id): culprit = remaining.firstIndex { $0.part.events.contains { $0.id == id } }
                default: culprit = nil
                }
                if let culprit, remaining.count > 1 {
                    remaining[culprit].result = .failure(error)
                    remaining.remove(at: culprit)
                    continue
                }
                if remaining.count == 1 {
                    remaining[0].result = .failure(error)
                    return transactions
                }
                return transactions + commitEach(remaining)
            } catch {
                if remaining.count == 1 {
                    remaining[0].result = .failure(error)
                    return transactions
                }
                return transactions + commitEach(remaining)
            }
        }
        return transactions
    }

    /// Commits each append in its own transaction (when a shared one failed as a whole).
    private func commitEach(_ batch: [Pending]) -> Int {
        for pending in batch {
            pending.result = Result { try base.append(pending.part.events, to: pending.part.stream, expectedVersion: pending.part.expectedVersion) }
        }
        return batch.count
    }

    /// Reads one stream from the wrapped store.
    public func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try base.read(stream: stream, from: version, direction: direction, limit: limit)
    }

    /// Reads the log in position order from the wrapped store.
    public func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
        try base.readAll(after: position, limit: limit)
    }

    /// Lends the log's events in position order from the wrapped store.
    public func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        try base.scanAll(after: position, limit: limit, body)
    }

    /// The wrapped store's head position.
    public func headPosition() throws -> Int64 { try base.headPosition() }

    /// A stream's version in the wrapped store.
    public func version(of stream: String) throws -> Int64 { try base.version(of: stream) }

    /// Waits for an event after `position` in the wrapped store.
    public func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool {
        try base.waitForEvents(after: position, timeout: timeout)
    }
}
