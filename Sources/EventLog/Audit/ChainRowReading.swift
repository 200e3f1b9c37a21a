/// One row of the log as the store holds its bytes, for `verify`'s fast path: the buffers are
/// valid only during the callback that receives the row.
public struct ChainRow {
    /// The row's position in the log.
    public var position: Int64
    /// The event's version in its stream.
    public var version: Int64
    /// The stream id as stored text.
    public var stream: UnsafeRawBufferPointer
    /// The event id as stored text.
    public var idText: UnsafeRawBufferPointer
    /// The event type as stored text.
    public var type: UnsafeRawBufferPointer
    /// The recording time as stored text (``Timestamp/format(_:)`` form).
    public var recordedAtText: UnsafeRawBufferPointer
    /// The payload (JSON) as stored.
    public var data: UnsafeRawBufferPointer
    /// The metadata (JSON) as stored.
    public var metadata: UnsafeRawBufferPointer
    /// The stored hash, as hex text.
    public var hashText: UnsafeRawBufferPointer

    /// Makes a row over buffers that stay valid during the callback that receives it.
    public init(position: Int64, version: Int64, stream: UnsafeRawBufferPointer, idText: UnsafeRawBufferPointer,
                type: UnsafeRawBufferPointer, recordedAtText: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer,
                metadata: UnsafeRawBufferPointer, hashText: UnsafeRawBufferPointer) {
        self.position = position
        self.version = version
        self.stream = stream
        self.idText = idText
        self.type = type
        self.recordedAtText = recordedAtText
        self.data = data
        self.metadata = metadata
        self.hashText = hashText
    }
}

/// A store that can hand `verify` its rows' bytes without building ``RecordedEvent``s (no
/// copies, no parsing): the verifier hashes them in place, and takes the ordinary path for
/// any row it cannot accept at once.
public protocol ChainRowReading: EventStore {
    /// Calls `body` with up to `limit` rows after `position`, in position order, until it
    /// returns false. `body` must not use the store (the store may hold a lock meanwhile).
    /// - Returns: the rows `body` accepted, and the position of the row it declined, if any.
    func forEachChainRow(after position: Int64, limit: Int, _ body: (ChainRow) throws -> Bool) throws -> (accepted: Int, declined: Int64?)
}
