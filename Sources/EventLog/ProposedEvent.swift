import Foundation

/// An event a writer asks a store to append: the store adds its stream, version,
/// position and recording time.
public struct ProposedEvent: Sendable, Hashable {
    /// A unique id; appending an id that is already in the log fails with
    /// ``EventStoreError/duplicateEventID(_:)``, which makes retries after a lost reply safe.
    public var id: UUID
    /// The event's type name, e.g. `Favorited`.
    public var type: String
    /// The payload: one JSON value as UTF-8 bytes, stored and returned byte for byte.
    public var data: Data
    /// Audit metadata: one JSON value as UTF-8 bytes, stored and returned byte for byte.
    public var metadata: Data
    /// The recording time to keep, for imports and migrations that copy a log; nil (the
    /// default) lets the store record the time of the append.
    public var recordedAt: Date?
    /// Only for an event copied from another log where it had been erased (`migrate`): the
    /// digests its payloads had, which that log kept. The store chains it from them, as the
    /// source did, so its hash, the tree and every checkpoint and proof stay the source's,
    /// and keeps them as this store's record of the erasure. Its data and metadata must be
    /// ``Erasure/tombstone``. Nil for every new event.
    public var erasure: CopiedErasure?

    /// Makes an event to append.
    /// - Parameters:
    ///   - id: the event's unique id (by default a new time-ordered one, see ``UUID/timeOrdered()``).
    ///   - type: the type name; not empty, no control characters.
    ///   - data: the JSON payload.
    ///   - metadata: the JSON metadata (`{}` by default).
    ///   - recordedAt: a recording time to keep (imports); nil for now.
    public init(id: UUID = .timeOrdered(), type: String, data: Data, metadata: Data = Data("{}".utf8), recordedAt: Date? = nil) {
        self.id = id
        self.recordedAt = recordedAt
        self.type = type
        self.data = data
        self.metadata = metadata
    }
}
