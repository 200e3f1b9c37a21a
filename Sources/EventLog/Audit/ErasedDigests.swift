import Foundation
import JSONKit

/// The original digests of an erased event's payloads, which the store keeps so that the
/// chain still verifies after `evtool forget` replaced them with ``Erasure/tombstone``.
public struct ErasedDigests: Sendable, Hashable {
    /// The erased event's position.
    public var position: Int64
    /// The erased event's id.
    public var eventID: UUID
    /// SHA-256 of the data as appended (32 raw bytes).
    public var dataSHA256: [UInt8]
    /// SHA-256 of the metadata as appended (32 raw bytes).
    public var metadataSHA256: [UInt8]
    /// The id of the `UserErased` event that records the erasure.
    public var erasureEventID: UUID

    /// Makes a record.
    public init(position: Int64, eventID: UUID, dataSHA256: [UInt8], metadataSHA256: [UInt8], erasureEventID: UUID) {
        self.position = position
        self.eventID = eventID
        self.dataSHA256 = dataSHA256
        self.metadataSHA256 = metadataSHA256
        self.erasureEventID = erasureEventID
    }
}

/// The erasure of an event copied from another log (``ProposedEvent/erasure``): the digests
/// its payloads had when appended, and the `UserErased` event that erased them there (copied
/// with the log, later in it).
public struct CopiedErasure: Sendable, Hashable {
    /// SHA-256 of the data as appended (32 raw bytes).
    public var dataSHA256: [UInt8]
    /// SHA-256 of the metadata as appended (32 raw bytes).
    public var metadataSHA256: [UInt8]
    /// The id of the `UserErased` event that records the erasure.
    public var erasureEventID: UUID

    /// The copy of a kept record.
    public init(_ kept: ErasedDigests) {
        dataSHA256 = kept.dataSHA256
        metadataSHA256 = kept.metadataSHA256
        erasureEventID = kept.erasureEventID
    }
}

/// What erasing a user means, shared by every store: the tombstone, the system stream that
/// records erasures, and the `UserErased` event.
public enum Erasure {
    /// What an erased event's data and metadata become.
    public static let tombstone = Data(#"{"erased":true}"#.utf8)
    /// Whether an event's payloads are both ``tombstone``: what `evtool forget` left of it.
    public static func isTombstone(data: Data, metadata: Data) -> Bool {
        data == tombstone && metadata == tombstone
    }

    /// Whether a recorded event is a tombstone (see ``isTombstone(data:metadata:)``).
    public static func isTombstone(_ event: RecordedEvent) -> Bool {
        isTombstone(data: event.data, metadata: event.metadata)
    }

    /// The system stream where each erasure is recorded as a `UserErased` event.
    public static let stream = "$erasures"
    /// The type of the event that records an erasure.
    public static let eventType = "UserErased"

    /// Who asked for an erasure, and why.
    public struct Request: Sendable, Hashable {
        /// The user's stream.
        public var stream: String
        /// Why (a ticket, a legal basis); kept in the log.
        public var reason: String
        /// Who did it (an operator's name); kept in the log.
        public var operatorName: String
        /// On a store with archives (``ArchivingStore``): the decision state to keep beside the
        /// stream's archived head in place of the one kept there, which holds what the archived
        /// events decided (favorites). Replaced in the erasure's transaction; nil leaves it.
        public var archivedState: Data?
        /// The view documents that hold the user's data, deleted in the erasure's transaction
        /// (every generation), so that no view keeps them once the erasure is committed, even
        /// when the rebuild that follows never runs.
        public var views: ViewDocuments

        /// Makes a request.
        public init(stream: String, reason: String, operatorName: String, archivedState: Data? = nil,
                    views: ViewDocuments = ViewDocuments()) {
            self.stream = stream
            self.reason = reason
            self.operatorName = operatorName
            self.archivedState = archivedState
            self.views = views
        }
    }

    /// Which view documents hold a user's data (the stores know views only by name).
    public struct ViewDocuments: Sendable, Hashable {
        /// Views whose documents are filed under the user's key (``Identifier/exactKey(_:)`` of
        /// the stream id): the user's document of each is deleted.
        public var keyedByUser: [String]
        /// Views whose documents name the acting user in a top-level string field (view name →
        /// field): each document whose field is the user's id (their stream id) is deleted (a
        /// rebuild makes it again from the events of other users).
        public var namingUser: [String: String]

        /// Names the documents (none by default).
        public init(keyedByUser: [String] = [], namingUser: [String: String] = [:]) {
            self.keyedByUser = keyedByUser
            self.namingUser = namingUser
        }
    }

    /// What an erasure did.
    public struct Outcome: Sendable, Hashable {
        /// Events whose payloads were replaced now (events erased before are not counted).
        public var erasedEvents: Int
        /// The last position of the user's stream that the erasure covers.
        public var throughPosition: Int64
        /// The `UserErased` event's id and position.
        public var eventID: UUID
        /// The `UserErased` event's position (its id is ``eventID``).
        public var position: Int64
        /// The user's stream version after the erasure: its marker's (``Erasure/markerType``);
        /// 0 when not known.
        public var streamVersion: Int64
        /// False when the user had nothing left to erase (every event a tombstone, the stream's
        /// last event an erasure's marker): nothing was recorded, and ``eventID`` and
        /// ``position`` name the `UserErased` event of the erasure that covers the stream.
        public var recorded: Bool

        /// Makes an outcome.
        public init(erasedEvents: Int, throughPosition: Int64, eventID: UUID, position: Int64, streamVersion: Int64 = 0,
                    recorded: Bool = true) {
            self.erasedEvents = erasedEvents
            self.throughPosition = throughPosition
            self.eventID = eventID
            self.position = position
            self.streamVersion = streamVersion
            self.recorded = recorded
        }
    }

    /// The `UserErased` event's data: the stream, how many events, through which position,
    /// who and why — never the erased data.
    public static func eventData(_ request: Request, erasedEvents: Int, throughPosition: Int64) -> Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("stream"); writer.string(request.stream)
        writer.key("events"); writer.number(erasedEvents)
        writer.key("throughPosition"); writer.number(throughPosition)
        writer.key("reason"); writer.string(request.reason)
        writer.key("by"); writer.string(request.operatorName)
        writer.endObject()
        return writer.data
    }

    /// What a verifier reads back from a `UserErased` event's data: the stream and the last
    /// position covered; nil when the data is not that shape.
    public static func coverage(of data: Data) -> (stream: String, throughPosition: Int64)? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let stream = object["stream"] as? String, let through = object["throughPosition"] as? NSNumber else { return nil }
        return (stream, through.int64Value)
    }
}
