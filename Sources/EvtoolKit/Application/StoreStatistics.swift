import EventLog
import StorePostgres
import Foundation

/// Counts of a store's log and the state of its views, as `evtool stats` shows them.
public struct StoreStatistics: Sendable, Hashable {
    /// Events in the log.
    public var events: Int
    /// Streams: one per user, and the system's own (``systemStreamIDs``).
    public var streams: Int
    /// Streams the system keeps for itself (the erasures' `$erasures`), among ``streams``.
    public var systemStreams: Int = 0
    /// Users: the streams that are not the system's.
    public var users: Int { streams - systemStreams }
    /// The ids of the streams evtool writes for itself.
    public static let systemStreamIDs: Set<String> = [Erasure.stream]
    /// The head position.
    public var head: Int64
    /// Events per type.
    public var types: [String: Int]
    /// Every view generation with its checkpoint.
    public var projections: [ProjectionStatus]
    /// A PostgreSQL store's layout (single table or partitioned); nil for SQLite (one table,
    /// never partitioned) and for a store read through a replica.
    public var layout: PostgresLayout?

    /// Makes statistics.
    public init(events: Int, streams: Int, head: Int64, types: [String: Int], projections: [ProjectionStatus]) {
        self.events = events
        self.streams = streams
        self.head = head
        self.types = types
        self.projections = projections
    }

    /// Counts `store`'s log (reads it whole, in batches) and lists its views' checkpoints.
    /// Streams are told apart by their ids' bytes, as the stores tell them apart (``StreamKey``):
    /// two ids that differ only in Unicode normalization are two streams.
    public static func of(_ store: any EventStore & ProjectionStore) throws -> StoreStatistics {
        var events = 0
        var streams = Set<StreamKey>()
        var types: [String: Int] = [:]
        try store.forEachBatch { batch in
            events += batch.count
            for event in batch {
                streams.insert(StreamKey(event.streamID))
                types[event.type, default: 0] += 1
            }
        }
        var statistics = StoreStatistics(events: events, streams: streams.count, head: try store.headPosition(), types: types,
                                         projections: try store.projectionStatuses())
        statistics.systemStreams = systemStreamIDs.filter { streams.contains(StreamKey($0)) }.count
        statistics.layout = try (store as? PostgresEventStore)?.layout()
        return statistics
    }
}
