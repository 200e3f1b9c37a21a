import EventLog
import Foundation

/// What erasing a user did: the erasure as the store recorded it and what happened after it
/// (views rebuilt, an SQLite file rewritten).
public struct ErasureResult: Sendable, Hashable {
    /// The user, as recorded (their stream).
    public var user: String
    /// The store's outcome: events erased now, the `UserErased` event's id and position.
    public var outcome: Erasure.Outcome
    /// The views were rebuilt through this position after the erasure.
    public var rebuiltThrough: Int64
    /// On SQLite: whether the file was rewritten and its WAL emptied (nil on other stores);
    /// false when other connections kept the WAL in use.
    public var compacted: Bool?
}
