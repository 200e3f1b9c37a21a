import EventLog
import Foundation

/// What erasing a user did: the erasure as the store recorded it and what happened after it
/// (views rebuilt, an SQLite file rewritten, archive files that still hold the user's events):
/// what `evtool forget` and `POST /v1/admin/users/{user}/forget` answer.
public struct ErasureResult: Sendable, Hashable {
    /// The user, as recorded (their stream).
    public var user: String
    /// Who erased, as the `UserErased` event records it.
    public var operatorName: String
    /// The store's outcome: events erased now, the `UserErased` event's id and position.
    public var outcome: Erasure.Outcome
    /// The views were rebuilt through this position after the erasure.
    public var rebuiltThrough: Int64
    /// On SQLite: the file was rewritten; whether its WAL could be emptied after (false when
    /// other connections kept it in use). Nil on stores that keep no file.
    public var walEmptied: Bool?
    /// On a store with archives: each archive file (as given) that holds events of the user,
    /// and how many, in archive order. Those events are not erased: evtool does not rewrite an
    /// archive file (the store records its SHA-256); views never fold them again.
    public var archived: [LogAudit.ArchivedEvents]

    /// How many of the user's events were erased now.
    public var erasedEvents: Int64 { Int64(outcome.erasedEvents) }
    /// The position of the `UserErased` event.
    public var position: Int64 { outcome.position }

    /// Makes a result.
    public init(user: String, operatorName: String, outcome: Erasure.Outcome, rebuiltThrough: Int64,
                walEmptied: Bool?, archived: [LogAudit.ArchivedEvents] = []) {
        self.user = user
        self.operatorName = operatorName
        self.outcome = outcome
        self.rebuiltThrough = rebuiltThrough
        self.walEmptied = walEmptied
        self.archived = archived
    }
}
