/// A store that records the checkpoints `evtool seal --key` signs, in an owner-only,
/// append-only table (schema 6; docs/explanation/audit.md): `evtool seal --list` shows them and
/// `evtool verify` checks that each is consistent with the log.
public protocol CheckpointRecording: EventStore {
    /// Every recorded checkpoint, in order. Cost: O(checkpoints); there are few.
    func recordedCheckpoints() throws -> [RecordedCheckpoint]

    /// The newest recorded checkpoint (the highest number), or nil when none was recorded.
    /// Cost: O(log checkpoints) on the stores (one indexed row); the default reads them all.
    func latestRecordedCheckpoint() throws -> RecordedCheckpoint?

    /// Records a checkpoint made with seal number `seal`, as the next one.
    /// - Returns: what was recorded (its number).
    func recordCheckpoint(seal: Int64, checkpoint: Checkpoint) throws -> RecordedCheckpoint
}

extension CheckpointRecording {
    /// The newest recorded checkpoint, found by reading them all (a store overrides it).
    public func latestRecordedCheckpoint() throws -> RecordedCheckpoint? {
        try recordedCheckpoints().last
    }
}

/// A checkpoint as a store recorded it.
public struct RecordedCheckpoint: Sendable, Hashable {
    /// 1, 2, 3 … in the order they were recorded.
    public let number: Int64
    /// The seal it was made with.
    public let seal: Int64
    /// The tree size it states, as recorded beside the text.
    public let size: UInt64
    /// The checkpoint's text, as printed (a signed note).
    public let note: String
    /// When it was recorded (``Timestamp/format(_:)``).
    public let recordedAt: String

    /// A recorded checkpoint.
    public init(number: Int64, seal: Int64, size: UInt64, note: String, recordedAt: String) {
        self.number = number
        self.seal = seal
        self.size = size
        self.note = note
        self.recordedAt = recordedAt
    }
}
