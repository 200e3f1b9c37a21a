import Foundation

/// An event as the log holds it.
public struct RecordedEvent: Sendable, Hashable {
    /// The event's place in the whole log: strictly increasing in the order the log is read.
    /// Positions start at 1 and may have gaps (a store may skip numbers of failed appends).
    public var position: Int64
    /// The stream the event belongs to (one stream per user in this project).
    public var streamID: String
    /// The event's version within its stream: 1, 2, 3 … with no gaps.
    public var version: Int64
    /// The event's unique id.
    public var id: UUID
    /// The event's type name.
    public var type: String
    /// The JSON payload, byte for byte as appended.
    public var data: Data
    /// The JSON metadata, byte for byte as appended.
    public var metadata: Data
    /// When the store recorded the event, to the microsecond.
    public var recordedAt: Date
    /// The event's link in its stream's hash chain: lowercase hex SHA-256, see ``EventChain``.
    /// Every store computes it when the event is appended.
    public var hash: String

    /// Makes a recorded event; stores call this when they read a row.
    public init(
        position: Int64, streamID: String, version: Int64, id: UUID, type: String,
        data: Data, metadata: Data, recordedAt: Date, hash: String
    ) {
        self.position = position
        self.streamID = streamID
        self.version = version
        self.id = id
        self.type = type
        self.data = data
        self.metadata = metadata
        self.recordedAt = recordedAt
        self.hash = hash
    }
}
