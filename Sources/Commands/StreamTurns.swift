import EventLog
import Foundation

/// One command at a time per user stream, in the order they came: a ``CommandRunner`` has
/// one, so a server (one runner) takes each user's commands in turn.
///
/// Without it, two commands of one user handled at once are decided on the same version,
/// and all but one lose the append's version check and are decided again: under a group
/// commit every such retry waits a commit, and a user whose requests keep coming (a phone
/// sending its outbox over several connections, a script) could lose every try and be told
/// 409 although no other writer was involved. With turns a command is decided on the
/// state the command before it left, so a command loses a race only to another runner
/// (another app server, `evtool` on the same store).
///
/// Why not more tries or a longer back-off: each retry is decided again while the user's
/// next request is already on its way, and waits a commit behind it; a fairer lottery is
/// still a lottery, and it costs every loser a commit. Why not a lock held across the
/// commit: a connection thread must not wait, so a command waiting here holds no thread.
///
/// A turn is taken waiting (``wait(_:)``, for a thread that may wait) or handed over later
/// (``take(_:orWhenFree:)``, for a thread that must not wait: the waiting command's body is
/// then called on the thread that ends the turn before it), and ended with ``end(_:)``.
/// Safe to share between threads.
final class StreamTurns: Sendable {
    /// Streams with a turn under way, by their key, and what waits for each, in order.
    private let shards: [Shard]

    /// Every request thread and committing thread takes and ends turns: behind ``Locked``, whose
    /// waiters sleep (a `Mutex`'s spin on a busy 2-core server).
    private final class Shard: Sendable {
        let turns = Locked<[StreamKey: [Waiter]]>([:])
    }

    /// A command waiting for its turn: called with the turn; returns whether it kept it (it
    /// will end it with ``end(_:)``) or gave it back at once.
    typealias Waiter = @Sendable () -> Bool

    init(shardCount: Int = 16) {
        shards = (0..<max(1, shardCount)).map { _ in Shard() }
    }

    private func shard(_ key: StreamKey) -> Shard {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }

    /// Takes the stream's turn now when it is free (true), or queues `waiter` for it (false):
    /// it is called, on the thread that ends the turn before it, when it is its turn.
    func take(_ stream: String, orWhenFree waiter: @escaping Waiter) -> Bool {
        let key = StreamKey(stream)
        return shard(key).turns.withLock { turns in
            if turns[key] != nil {
                turns[key]!.append(waiter)
                return false
            }
            turns[key] = []
            return true
        }
    }

    /// Takes the stream's turn, waiting for the turns before it to end.
    func wait(_ stream: String) {
        let key = StreamKey(stream)
        // A semaphore only when there is something to wait for.
        let handed = shard(key).turns.withLock { turns -> DispatchSemaphore? in
            guard turns[key] != nil else {
                turns[key] = []
                return nil
            }
            let handed = DispatchSemaphore(value: 0)
            turns[key]!.append { handed.signal(); return true }
            return handed
        }
        handed?.wait()
    }

    /// Ends the stream's turn: hands it to the next command waiting, if any, on this thread;
    /// and to the one after it, when that one gives it back at once.
    func end(_ stream: String) {
        let key = StreamKey(stream)
        let shard = shard(key)
        while let next = shard.turns.withLock({ turns -> Waiter? in
            // In place: a copy taken out and put back would copy the queue.
            guard turns[key]?.isEmpty == false else {
                turns[key] = nil
                return nil
            }
            return turns[key]!.removeFirst()
        }) {
            if next() { return }
        }
    }

    /// How many streams have a turn under way (for tests).
    var streamsInTurn: Int {
        shards.reduce(0) { count, shard in count + shard.turns.withLock { $0.count } }
    }
}
