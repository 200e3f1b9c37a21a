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
public final class GroupCommitStore: EventStore, @unchecked Sendable {
    // @unchecked: `queue`, `committing`, `streamsInFlight`, each `Pending` and the counters are used only under `condition`.
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
    private var commitCount = 0
    private var appendCount = 0

    private final class Pending {
        let part: StreamAppend
        var result: Result<AppendResult, any Error>?
        var taken = false
        init(_ part: StreamAppend) { self.part = part }
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
    public func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        let pending = Pending(StreamAppend(stream: stream, expectedVersion: expectedVersion, events: events))
        condition.lock()
        queue.append(pending)
        while true {
            if let result = pending.result {
                condition.unlock()
                return try result.get()
            }
            if !pending.taken, committing < maximumConcurrentCommits {
                // Lead: take what is queued (one append per stream, none of a stream another
                // transaction is committing, so each check is against the stream as the earlier
                // commits left it) and commit it.
                var batch: [Pending] = []
                var streams = Set<String>()
                var rest: [Pending] = []
                for candidate in queue {
                    if batch.count < maximumBatch, !streamsInFlight.contains(candidate.part.stream), streams.insert(candidate.part.stream).inserted {
                        candidate.taken = true
                        batch.append(candidate)
                    } else {
                        rest.append(candidate)
                    }
                }
                if !batch.isEmpty {
                    queue = rest
                    committing += 1
                    streamsInFlight.formUnion(streams)
                    condition.unlock()
                    let commits = commit(batch)
                    condition.lock()
                    commitCount += commits
                    appendCount += batch.count
                    committing -= 1
                    streamsInFlight.subtract(streams)
                    condition.broadcast()
                    continue
                }
            }
            condition.wait()
        }
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
