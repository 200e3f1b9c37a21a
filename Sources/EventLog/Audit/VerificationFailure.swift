import Foundation

/// The first problem `evtool verify` found in a log: what kind, where, and in which stream.
public struct VerificationFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened to the log, as far as the verifier can tell.
    public enum Kind: String, Sendable, Hashable {
        /// An event's (or a seal's) content no longer matches its hash.
        case modified
        /// Events are missing: a version gap, a stream's head behind a seal, a truncated log.
        case deleted
        /// An event that was never appended: a version seen twice, or a forged link.
        case inserted
        /// Events of a stream are out of version order in the log.
        case reordered
    }

    /// What happened.
    public var kind: Kind
    /// Where in the log (the position of the event, or of the seal, concerned).
    public var position: Int64
    /// The stream concerned, when one is.
    public var stream: String?
    /// The details, in words.
    public var detail: String
    /// For tombstones that chain by their kept digests but whose erasure row names a
    /// `UserErased` event the log does not hold: that event's id and how many tombstones wait
    /// for it. A copy of a log (`migrate`) cut short after the tombstones and before the
    /// erasure's record looks like this, and so does a tombstone written by hand; the face
    /// tells them apart by the store's record of an unfinished copy (``CopyRecording``).
    public var awaitedErasure: AwaitedErasure?

    /// A `UserErased` event that tombstones name and the log does not hold.
    public struct AwaitedErasure: Sendable, Hashable {
        /// The `UserErased` event's id, as the erasure rows name it.
        public var erasureEventID: UUID
        /// How many tombstones name it.
        public var tombstones: Int

        /// Makes one.
        public init(erasureEventID: UUID, tombstones: Int) {
            self.erasureEventID = erasureEventID
            self.tombstones = tombstones
        }
    }

    /// Makes a failure.
    public init(_ kind: Kind, position: Int64, stream: String?, _ detail: String) {
        self.kind = kind
        self.position = position
        self.stream = stream
        self.detail = detail
    }

    public var description: String {
        let place = stream.map { "position \(position), stream '\($0)'" } ?? "position \(position)"
        return "\(kind.rawValue) at \(place): \(detail)"
    }
}

/// What a successful verification covered.
public struct VerificationReport: Sendable, Hashable {
    /// The log's events up to ``head``: those checked, and the archived ones below the archive
    /// boundary counted without being checked (``uncheckedArchivedEvents``).
    public var events: Int64
    /// Archived events counted in ``events`` but not checked: after `evtool archive`, verified
    /// without the archive files, the log is checked from the boundary on (the streams' heads
    /// there carried over) and the events below it are not read. 0 when every event was checked.
    public var uncheckedArchivedEvents: Int64 = 0
    /// The first position checked: 1, or the archive boundary (``uncheckedArchivedEvents``).
    public var firstCheckedPosition: Int64 = 1
    /// The events checked: ``events`` less ``uncheckedArchivedEvents``.
    public var checkedEvents: Int64 { events - uncheckedArchivedEvents }
    /// Streams seen.
    public var streams: Int
    /// Seals verified.
    public var seals: Int
    /// Erased events accepted through their kept digests.
    public var erasedEvents: Int64
    /// The last position verified.
    public var head: Int64
    /// Each stream's head at the end (for `evtool seal`), when the whole log was verified.
    public var heads: StreamHeads

    /// Makes a report.
    public init(events: Int64, streams: Int, seals: Int, erasedEvents: Int64, head: Int64, heads: StreamHeads) {
        self.events = events
        self.streams = streams
        self.seals = seals
        self.erasedEvents = erasedEvents
        self.head = head
        self.heads = heads
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.events == rhs.events && lhs.streams == rhs.streams && lhs.seals == rhs.seals
            && lhs.erasedEvents == rhs.erasedEvents && lhs.head == rhs.head
            && lhs.uncheckedArchivedEvents == rhs.uncheckedArchivedEvents && lhs.firstCheckedPosition == rhs.firstCheckedPosition
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(events)
        hasher.combine(head)
    }
}
