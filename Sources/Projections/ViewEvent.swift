import Commands
import EventLog
import Foundation

/// A recorded event decoded once for all the projections that read it.
public struct ViewEvent: Sendable {
    /// The event's place in the log.
    public var position: Int64
    /// The acting user (the event's stream).
    public var userID: String
    /// When the store recorded it.
    public var recordedAt: Date
    /// What the user did.
    public var event: DomainEvent

    public init(position: Int64, userID: String, recordedAt: Date, event: DomainEvent) {
        self.position = position
        self.userID = userID
        self.recordedAt = recordedAt
        self.event = event
    }

    /// Decodes a recorded event; nil when its type is not one of the domain's (such events do
    /// not concern any view) or its payload cannot be read (counted by the projector).
    public static func decode(_ recorded: RecordedEvent) -> ViewEvent? {
        guard let event = try? DomainEvent.decode(recorded) else { return nil }
        return ViewEvent(position: recorded.position, userID: recorded.streamID, recordedAt: recorded.recordedAt, event: event)
    }
}
