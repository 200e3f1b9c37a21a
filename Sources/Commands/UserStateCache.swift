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
    /// By the stream id's bytes, as the stores tell streams apart (``StreamKey``).
    private let entries: Mutex<[StreamKey: LoadedUser]>
    /// The most users kept; past it an arbitrary entry is dropped.
    public let capacity: Int

    /// Makes an empty cache.
    /// - Parameter capacity: the most users kept (at least 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
        self.entries = Mutex([:])
    }

    /// The cached state of a stream, if any.
    public func loaded(stream: String) -> LoadedUser? {
        entries.withLock { $0[StreamKey(stream)] }
    }

    /// Keeps a stream's state unless a newer one is already kept.
    public func keep(_ loaded: LoadedUser, stream: String) {
        let key = StreamKey(stream)
        entries.withLock { entries in
            if let existing = entries[key], existing.version >= loaded.version { return }
            if entries[key] == nil, entries.count >= capacity, let victim = entries.keys.first {
                entries.removeValue(forKey: victim)
            }
            entries[key] = loaded
        }
    }

    /// Forgets a stream's state.
    public func forget(stream: String) {
        _ = entries.withLock { $0.removeValue(forKey: StreamKey(stream)) }
    }

    /// How many users are kept now.
    public var count: Int { entries.withLock { $0.count } }
}
