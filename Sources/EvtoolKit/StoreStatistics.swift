import EventLog
import Foundation

/// Counts of a store's log and the state of its views, as `evtool stats` shows them.
public struct StoreStatistics: Sendable, Hashable {
    /// Events in the log.
    public var events: Int
    /// Streams (one per user).
    public var streams: Int
    /// The head position.
    public var head: Int64
    /// Events per type.
    public var types: [String: Int]
    /// Every view generation with its checkpoint.
    public var projections: [ProjectionStatus]

    /// Makes statistics.
    public init(events: Int, streams: Int, head: Int64, types: [String: Int], projections: [ProjectionStatus]) {
        self.events = events
        self.streams = streams
        self.head = head
        self.types = types
        self.projections = projections
    }
}
