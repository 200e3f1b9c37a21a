import Foundation

/// The reads of users a runner does not hold yet, made together when its threads need them
/// at the same time: one statement for every user waiting, instead of a round trip each
/// (``UserSnapshotStreamReading/readsUsersTogether``: PostgreSQL).
///
/// A server that has just started holds no user, and each user's first command reads the
/// user's snapshot and stream (`evtool serve` takes these reads on its worker threads, while
/// the connection waits). One at a time, every waiting thread paid a round trip and the
/// database a statement each. Here, as a group commit does for appends, the first thread to
/// ask reads at once, for itself and whoever is waiting; those who ask while a read is under
/// way wait for it to end, and the next read, made by one of them, takes them all (at most
/// ``batchLimit``). One read is under way at a time. When a read of several users fails, each
/// of them is read again alone, on its own thread, so that one user's failure (or a lost
/// connection) is that user's error only; a read of one user fails with its error. Nothing is
/// kept here but what is waiting.
///
/// Why not a read per thread, as before: under a burst of new users each waited for its own
/// round trip behind the others on the server's threads. Why not a short wait to gather more:
/// the read under way gathers them, and a user alone is read at once.
final class LoadGroup: @unchecked Sendable {
    // @unchecked: everything below is used only under `condition`.
    private let condition = NSCondition()
    private var waiting: [(ticket: Int, stream: String)] = []
    /// Each finished ticket's read; nil: read it alone (the read it was in failed).
    private var results: [Int: Result<UserSnapshotAndEvents?, any Error>?] = [:]
    private var reading = false
    private var nextTicket = 0

    /// The most users one read takes.
    static let batchLimit = 64

    /// The users waiting for a read to start.
    var waitingCount: Int { condition.withLock { waiting.count } }

    /// The user's snapshot and events from `reader`, read with the users other threads wait
    /// for (each one's ``UserSnapshotStreamReading/latestSnapshotAndEvents(stream:limit:)``).
    /// - Throws: the read's error for this user.
    func read(_ stream: String, limit: Int, from reader: any UserSnapshotStreamReading) throws -> UserSnapshotAndEvents? {
        condition.lock()
        let ticket = nextTicket
        nextTicket += 1
        waiting.append((ticket, stream))
        while true {
            if let result = results.removeValue(forKey: ticket) {
                condition.unlock()
                guard let result else { return try reader.latestSnapshotAndEvents(stream: stream, limit: limit) }
                return try result.get()
            }
            if reading {
                condition.wait()
                continue
            }
            // No read under way: this thread reads for everyone waiting, in the order they asked.
            let batch = Array(waiting.prefix(Self.batchLimit))
            waiting.removeFirst(batch.count)
            reading = true
            condition.unlock()
            let outcome = Result { try reader.latestSnapshotsAndEvents(streams: batch.map(\.stream), limit: limit) }
            condition.lock()
            reading = false
            switch outcome {
            case .success(let reads) where reads.count == batch.count:
                for (index, asked) in batch.enumerated() { results[asked.ticket] = .success(reads[index]) }
            case .success(let reads):
                let error = LoadGroupError.readCount(asked: batch.count, read: reads.count)
                for asked in batch { results[asked.ticket] = .failure(error) }
            case .failure(let error) where batch.count == 1:
                results[batch[0].ticket] = .failure(error)
            case .failure:
                for asked in batch { results[asked.ticket] = .some(nil) }
            }
            condition.broadcast()
        }
    }
}

/// A store's read of several users that did not answer each of them.
enum LoadGroupError: Error, CustomStringConvertible {
    case readCount(asked: Int, read: Int)

    var description: String {
        switch self {
        case let .readCount(asked, read): return "the store read \(read) users' snapshots and events where \(asked) were asked for"
        }
    }
}
