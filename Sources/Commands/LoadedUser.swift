import Foundation

/// A user's decision state at a stream version, plus the ids of their latest events (to
/// recognise a retried request without another read).
public struct LoadedUser: Sendable, Hashable {
    /// How many recent event ids are kept.
    public static let recentEventIDLimit = 64

    /// The stream version the state reflects (0 for no events).
    public var version: Int64
    /// The state after events 1 through ``version``.
    public var state: UserState
    /// The ids of the last events, oldest first, at most ``recentEventIDLimit``.
    public var recentEventIDs: [UUID]
    /// The version of the latest snapshot saved or read for this stream (0 for none).
    public var snapshotVersion: Int64
    /// Whether the event at ``version`` was already a tombstone when it was folded in. When it
    /// was not and is one now, the user was erased since, and the state (kept in a cache or a
    /// snapshot) still holds what was erased: the runner then reads the stream whole.
    public var endsWithTombstone: Bool
    /// The chain hash of the event at ``version`` as read from the stream ("" when not known,
    /// e.g. right after an append); a snapshot keeps it, and the runner compares it with the
    /// stream before it trusts a kept state.
    public var lastEventHash: String

    /// Makes a loaded state.
    public init(
        version: Int64 = 0, state: UserState = UserDecider.initialState, recentEventIDs: [UUID] = [],
        snapshotVersion: Int64 = 0, endsWithTombstone: Bool = false, lastEventHash: String = ""
    ) {
        self.version = version
        self.state = state
        self.recentEventIDs = recentEventIDs
        self.snapshotVersion = snapshotVersion
        self.endsWithTombstone = endsWithTombstone
        self.lastEventHash = lastEventHash
    }

    mutating func remember(_ id: UUID) {
        if recentEventIDs.count == Self.recentEventIDLimit { recentEventIDs.removeFirst() }
        recentEventIDs.append(id)
    }
}
