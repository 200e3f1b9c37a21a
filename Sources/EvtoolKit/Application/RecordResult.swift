import Commands
import Foundation

/// What recording one user action did.
public struct RecordResult: Sendable, Hashable {
    /// The acting user.
    public var user: String
    /// The event type the action records (`Favorited`, …).
    public var type: String
    /// The ids of the events recorded; empty when nothing was.
    public var eventIDs: [UUID]
    /// The positions the events took in the log; nil when nothing was recorded.
    public var positions: ClosedRange<Int64>?
    /// The user's stream version after the action (what an ETag carries).
    public var streamVersion: Int64
    /// Why nothing was recorded; nil when events were.
    public var unchanged: Unchanged?
    /// Whether this answers a repeated request id with the first request's outcome.
    public var isReplay: Bool

    /// Whether events were recorded (by this request or, for a replay, by the first one).
    public var isRecorded: Bool { unchanged == nil }

    /// Makes a result.
    public init(user: String, type: String, eventIDs: [UUID], positions: ClosedRange<Int64>?, streamVersion: Int64,
                unchanged: Unchanged?, isReplay: Bool) {
        self.user = user
        self.type = type
        self.eventIDs = eventIDs
        self.positions = positions
        self.streamVersion = streamVersion
        self.unchanged = unchanged
        self.isReplay = isReplay
    }
}
