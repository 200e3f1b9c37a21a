import EventLog
import Synchronization

/// Users' decision states kept between commands, so a command reads only the events
/// appended since (usually none) instead of the whole stream.
///
/// Safe because a stream is append-only: the state at version n never changes, and the
/// runner always reads from n + 1 before deciding and appends with the exact version. Each
/// process keeps its own cache; other app servers' appends are read as new events.
/// Safe to share between threads.
public final class UserStateCache: Sendable {
    /// By the stream id's bytes, as the stores tell streams apart (``StreamKey``), in shards
    /// chosen by the key's hash, each behind its own lock: the server's connection threads
    /// read the cache while the committing threads keep what they committed, and one lock for
    /// all of them was where they queued.
    private let shards: [Shard]
    /// The most users kept; past it an arbitrary entry is dropped.
    public let capacity: Int

    private final class Shard: Sendable {
        let entries: Mutex<[StreamKey: LoadedUser]>
        /// The most users this shard keeps (the shards' bounds add up to the capacity).
        let capacity: Int
        init(capacity: Int) {
            self.capacity = capacity
            self.entries = Mutex([:])
        }
    }

    /// How many shards a cache has at most (fewer when its capacity is smaller).
    static let shardCount = 16

    /// Makes an empty cache.
    /// - Parameter capacity: the most users kept (at least 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        let count = min(Self.shardCount, self.capacity)
        let (share, extra) = self.capacity.quotientAndRemainder(dividingBy: count)
        self.shards = (0..<count).map { Shard(capacity: share + ($0 < extra ? 1 : 0)) }
    }

    private func shard(_ key: StreamKey) -> Shard {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(shards.count))]
    }

    /// The cached state of a stream, if any.
    public func loaded(stream: String) -> LoadedUser? {
        let key = StreamKey(stream)
        return shard(key).entries.withLock { $0[key] }
    }

    /// Keeps a stream's state unless a newer one is already kept.
    public func keep(_ loaded: LoadedUser, stream: String) {
        let key = StreamKey(stream)
        let shard = shard(key)
        shard.entries.withLock { entries in
            if let index = entries.index(forKey: key) {
                if entries.values[index].version < loaded.version { entries.values[index] = loaded }
                return
            }
            if entries.count >= shard.capacity, let victim = entries.keys.first {
                entries.removeValue(forKey: victim)
            }
            entries[key] = loaded
        }
    }

    /// Forgets a stream's state.
    public func forget(stream: String) {
        let key = StreamKey(stream)
        _ = shard(key).entries.withLock { $0.removeValue(forKey: key) }
    }

    /// How many users are kept now.
    public var count: Int { shards.reduce(0) { total, shard in total + shard.entries.withLock { $0.count } } }
}
