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
/// same rule as the stored snapshots, so it never changes an answer. Bounded: at most
/// ``capacity`` states in all (the streams least recently used are dropped first) and at most
/// a quarter of them for one stream (thinned to every other state when it has more).
/// Safe to share between threads.
public final class TimeTravelCache: Sendable {
    /// One kept state: the view's document for a user after the event at `version`.
    struct Entry: Sendable {
        var version: Int64
        var position: Int64
        var eventID: UUID
        var hash: String
        var tombstone: Bool
        /// The document, of the projection the key names (`P.Document?`).
        var document: any Sendable

        init(after recorded: RecordedEvent, document: any Sendable) {
            version = recorded.version
            position = recorded.position
            eventID = recorded.id
            hash = recorded.hash
            tombstone = Erasure.isTombstone(recorded)
            self.document = document
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

    struct Key: Hashable, Sendable {
        var kind: String
        var stream: String
    }

    struct State: Sendable {
        /// Each stream's kept states, in version order.
        var entries: [Key: [Entry]] = [:]
        var lastUse: [Key: UInt64] = [:]
        var count = 0
        var tick: UInt64 = 0
    }

    /// The most states kept in all.
    public let capacity: Int
    /// Versions between two states kept while folding.
    public let step: Int64
    private let state = Mutex(State())

    /// A cache of at most `capacity` states, one every `step` versions of a folded stream.
    public init(capacity: Int = 1_024, step: Int64 = 16) {
        self.capacity = max(capacity, 4)
        self.step = max(step, 1)
    }

    /// How many states are kept now.
    public var count: Int { state.withLock { $0.count } }

    /// The kept state with the highest position at or before `position`, and the version of
    /// the next kept state after it (an upper bound for the reading), for the stream's view.
    func start(_ key: Key, atOrBefore position: Int64) -> (entry: Entry, nextVersion: Int64?)? {
        state.withLock { state in
            guard let entries = state.entries[key] else { return nil }
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

    /// Keeps `new` states of the stream's view (replacing any at the same versions).
    func keep(_ new: [Entry], for key: Key) {
        guard !new.isEmpty else { return }
        state.withLock { state in
            var entries = state.entries.removeValue(forKey: key) ?? []   // out of the dictionary: no copy on write
            let before = entries.count
            for entry in new {
                var low = 0, high = entries.count
                while low < high {
                    let middle = (low + high) / 2
                    if entries[middle].version < entry.version { low = middle + 1 } else { high = middle }
                }
                if low < entries.count, entries[low].version == entry.version { entries[low] = entry } else { entries.insert(entry, at: low) }
            }
            let perStream = max(capacity / 4, 2)
            while entries.count > perStream {
                let lastIndex = entries.count - 1
                entries = entries.enumerated().filter { $0.offset % 2 == 0 || $0.offset == lastIndex }.map(\.element)
            }
            state.count += entries.count - before
            state.entries[key] = entries
            state.tick += 1
            state.lastUse[key] = state.tick
            while state.count > capacity, let oldest = state.lastUse.filter({ $0.key != key }).min(by: { $0.value < $1.value })?.key {
                state.count -= state.entries.removeValue(forKey: oldest)?.count ?? 0
                state.lastUse.removeValue(forKey: oldest)
            }
        }
    }

    /// Forgets the stream's view states (one that no longer fits).
    func drop(_ key: Key) {
        state.withLock { state in
            state.count -= state.entries.removeValue(forKey: key)?.count ?? 0
            state.lastUse.removeValue(forKey: key)
        }
    }
}
