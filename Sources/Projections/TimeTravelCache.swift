import Commands
import EventLog
import Foundation
import Synchronization

/// Views of users as they were at past versions of their streams, kept in memory by a
/// long-running process (``TimeTravel/document(_:key:asOf:in:cache:)``), so that a view as of
/// a past position for a user with a long stream reads a few of the user's events from the
/// nearest kept state, instead of searching the stream for the position, checking a stored
/// snapshot and folding up to ``ViewSnapshots/interval`` events every time.
///
/// While a view is folded for a past position, its state is kept every ``step`` versions and
/// at the version the position falls on. A kept state is used only when the event it ends with
/// is still the one it was made from (same version, id and chain hash, not erased since), the
/// same rule as the stored snapshots, so it never changes an answer. Bounded by memory: at
/// most ``byteLimit`` bytes in all (64 MiB unless set) and ``capacity`` states, the streams
/// least recently used dropped first; one stream keeps at most a quarter of each (thinned to
/// every other state when it has more). A state's bytes are estimated from what its document
/// holds (``bytes``): a favorites document counts its chunks and index shards once per stream
/// however many of its kept states share them (``FavoritesProjection/Document``), the other
/// views an estimate per item; a document of another type counts twice its JSON's length.
/// Safe to share between threads.
public final class TimeTravelCache: Sendable {
    /// One kept state: the view's document for a user after the event at `version`.
    struct Entry: Sendable {
        var version: Int64
        var position: Int64
        var eventID: UUID
        var hash: String
        var tombstone: Bool
        /// The document, of the projection the key names (a ``Held`` of `P.Document`).
        var document: any Sendable
        /// The bytes of this state no other state shares (the entry itself, the parts of its
        /// document no other can hold).
        var ownBytes: Int
        /// The parts of its document other kept states may share: identity and bytes.
        var sharedParts: [(ObjectIdentifier, Int)]

        /// What an entry costs beside its document: its fields, the id's and hash's text, the box.
        static let overhead = 256

        /// The state after `recorded` holding `document`, its bytes estimated.
        init<Document: ViewDocument>(after recorded: RecordedEvent, holding document: Document?) {
            version = recorded.version
            position = recorded.position
            eventID = recorded.id
            hash = recorded.hash
            tombstone = Erasure.isTombstone(recorded)
            self.document = Held(document: document)
            var own = Self.overhead, shared: [(ObjectIdentifier, Int)] = []
            if let document {
                if let costed = document as? any MemoryCost {
                    costed.memoryParts { identity, bytes in
                        if let identity { shared.append((identity, bytes)) } else { own += bytes }
                    }
                } else {
                    own += 2 * document.jsonData.count
                }
            }
            ownBytes = own + shared.capacity * MemoryLayout<(ObjectIdentifier, Int)>.stride
            sharedParts = shared
        }

        /// Whether `event` is still the event this state ends with.
        func fits(_ event: RecordedEvent) -> Bool {
            event.version == version && event.id == eventID && event.hash == hash && Erasure.isTombstone(event) == tombstone
        }
    }

    /// A document of any view, as an entry holds it.
    struct Held<Document: Sendable>: Sendable {
        var document: Document?
    }

    /// A view's kind and a stream, the stream by its id's bytes (``EventLog/StreamKey``): two
    /// streams whose ids are canonically equal but differ in bytes (written before the identity
    /// rule) keep their states apart.
    struct Key: Hashable, Sendable {
        var kind: String
        var stream: StreamKey

        init(kind: String, stream: String) {
            self.kind = kind
            self.stream = StreamKey(stream)
        }
    }

    /// One stream's kept states and what they hold, each shared part counted once.
    struct StreamStates: Sendable {
        /// The kept states, in version order.
        var entries: [Entry] = []
        /// Each shared part the states hold: how many hold it, its bytes.
        var parts: [ObjectIdentifier: (holders: Int, bytes: Int)] = [:]
        /// The bytes of all the states.
        var bytes = 0

        /// What one shared part's entry in ``parts`` costs.
        static let partOverhead = 48

        /// Counts `entry`'s bytes in (its shared parts once).
        mutating func count(_ entry: Entry) {
            bytes += entry.ownBytes
            for (identity, size) in entry.sharedParts {
                if let part = parts[identity] {
                    parts[identity] = (part.holders + 1, part.bytes)
                } else {
                    parts[identity] = (1, size + Self.partOverhead)
                    bytes += size + Self.partOverhead
                }
            }
        }

        /// Counts `entry`'s bytes out (a shared part when no other state holds it).
        mutating func uncount(_ entry: Entry) {
            bytes -= entry.ownBytes
            for (identity, _) in entry.sharedParts {
                guard let part = parts[identity] else { continue }
                if part.holders > 1 {
                    parts[identity] = (part.holders - 1, part.bytes)
                } else {
                    parts.removeValue(forKey: identity)
                    bytes -= part.bytes
                }
            }
        }
    }

    struct State: Sendable {
        var streams: [Key: StreamStates] = [:]
        var lastUse: [Key: UInt64] = [:]
        var count = 0
        var bytes = 0
        var byteLimit: Int
        var tick: UInt64 = 0

        /// Drops the streams least recently used but `key` while over a bound.
        mutating func evict(over capacity: Int, sparing key: Key?) {
            while count > capacity || bytes > byteLimit,
                  let oldest = lastUse.filter({ $0.key != key }).min(by: { $0.value < $1.value })?.key {
                drop(oldest)
            }
        }

        mutating func drop(_ key: Key) {
            if let stream = streams.removeValue(forKey: key) {
                count -= stream.entries.count
                bytes -= stream.bytes
            }
            lastUse.removeValue(forKey: key)
        }
    }

    /// The most states kept in all.
    public let capacity: Int
    /// Versions between two states kept while folding.
    public let step: Int64
    private let state: Mutex<State>

    /// The default bound on the bytes kept: 64 MiB.
    public static let defaultByteLimit = 64 << 20

    /// A cache of at most `capacity` states and `bytes` bytes (estimated, see the type), one
    /// state every `step` versions of a folded stream.
    public init(capacity: Int = 4_096, bytes: Int = TimeTravelCache.defaultByteLimit, step: Int64 = 16) {
        self.capacity = max(capacity, 4)
        self.step = max(step, 1)
        state = Mutex(State(byteLimit: max(bytes, 0)))
    }

    /// How many states are kept now.
    public var count: Int { state.withLock { $0.count } }

    /// The bytes the kept states hold now, estimated (never more than ``byteLimit``).
    public var bytes: Int { state.withLock { $0.bytes } }

    /// The most bytes kept in all (estimated); setting a lower one drops the streams least
    /// recently used until the states fit.
    public var byteLimit: Int {
        get { state.withLock { $0.byteLimit } }
        set {
            state.withLock { state in
                state.byteLimit = max(newValue, 0)
                state.evict(over: capacity, sparing: nil)
            }
        }
    }

    /// The kept state with the highest position at or before `position`, and the version of
    /// the next kept state after it (an upper bound for the reading), for the stream's view.
    func start(_ key: Key, atOrBefore position: Int64) -> (entry: Entry, nextVersion: Int64?)? {
        state.withLock { state in
            guard let entries = state.streams[key]?.entries else { return nil }
            // The first entry past the position (positions rise with versions).
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].position <= position { low = middle + 1 } else { high = middle }
            }
            guard low > 0 else { return nil }
            state.tick += 1
            state.lastUse[key] = state.tick
            return (entries[low - 1], low < entries.count ? entries[low].version : nil)
        }
    }

    /// Keeps `new` states of the stream's view (replacing any at the same versions), then
    /// thins the stream's states to a quarter of each bound and drops the streams least
    /// recently used until all fit.
    func keep(_ new: [Entry], for key: Key) {
        guard !new.isEmpty else { return }
        state.withLock { state in
            var stream = state.streams.removeValue(forKey: key) ?? StreamStates()   // out of the dictionary: no copy on write
            let before = (count: stream.entries.count, bytes: stream.bytes)
            for entry in new {
                var low = 0, high = stream.entries.count
                while low < high {
                    let middle = (low + high) / 2
                    if stream.entries[middle].version < entry.version { low = middle + 1 } else { high = middle }
                }
                if low < stream.entries.count, stream.entries[low].version == entry.version {
                    let replaced = stream.entries[low]
                    stream.uncount(replaced)
                    stream.entries[low] = entry
                } else {
                    stream.entries.insert(entry, at: low)
                }
                stream.count(entry)
            }
            let perStream = (count: max(capacity / 4, 2), bytes: state.byteLimit / 4)
            while stream.entries.count > perStream.count || stream.bytes > perStream.bytes {
                if stream.entries.count <= 2 {
                    // Every other state would keep both: drop the older (then the last, if it alone is too big).
                    let oldest = stream.entries.removeFirst()
                    stream.uncount(oldest)
                    continue
                }
                let lastIndex = stream.entries.count - 1
                var thinned: [Entry] = []
                thinned.reserveCapacity(stream.entries.count / 2 + 1)
                for (offset, entry) in stream.entries.enumerated() {
                    if offset % 2 == 0 || offset == lastIndex { thinned.append(entry) } else { stream.uncount(entry) }
                }
                stream.entries = thinned
            }
            state.count += stream.entries.count - before.count
            state.bytes += stream.bytes - before.bytes
            if stream.entries.isEmpty {
                state.lastUse.removeValue(forKey: key)
            } else {
                state.streams[key] = stream
                state.tick += 1
                state.lastUse[key] = state.tick
            }
            state.evict(over: capacity, sparing: key)
        }
    }

    /// Forgets the stream's view states (one that no longer fits).
    func drop(_ key: Key) {
        state.withLock { $0.drop(key) }
    }
}
