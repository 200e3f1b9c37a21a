/// `verify`'s checks of the checkpoints a store recorded (``CheckpointRecording``): each must
/// be a checkpoint of the size recorded beside it, made with a seal of the store at that size
/// and time, and have the root of the log's first `size` events (a consistency proof from it
/// to today's tree holds exactly then). And, against a checkpoint file kept outside the store,
/// that the store still records it as it was made.
public enum RecordedCheckpointCheck {
    /// Checks every recorded checkpoint against the log and the seals.
    /// - Returns: how many were checked.
    /// - Throws: ``RecordedCheckpointFailure`` naming the first that does not hold.
    @discardableResult
    public static func verify(_ store: any EventStore, logSize: UInt64) throws -> Int {
        guard let recording = store as? any CheckpointRecording else { return 0 }
        let recorded = try recording.recordedCheckpoints()
        guard !recorded.isEmpty else { return 0 }
        let seals = try (store as? any AuditableEventStore)?.seals() ?? []
        for entry in recorded {
            func failure(_ reason: String) -> RecordedCheckpointFailure { RecordedCheckpointFailure(number: entry.number, reason: reason) }
            let checkpoint: Checkpoint
            do {
                checkpoint = try Checkpoint(text: entry.note)
            } catch {
                throw failure("is not a checkpoint (\(error)): it was rewritten")
            }
            guard checkpoint.size == entry.size else {
                throw failure("states \(checkpoint.size.counted("event")), but is recorded for \(entry.size): it was rewritten")
            }
            guard let seal = seals.first(where: { $0.number == entry.seal }), UInt64(seal.events) == checkpoint.size, seal.sealedAt == checkpoint.time else {
                throw failure("names seal \(entry.seal), and no seal of \(checkpoint.size.counted("event")) sealed at \(checkpoint.time) has that number: the checkpoint or the seals were replaced")
            }
            guard checkpoint.size <= logSize else {
                throw failure("covers \(checkpoint.size.counted("event")) and the log has \(logSize): it was truncated or events were removed")
            }
            let root = checkpoint.size == 0 ? MerkleHash.empty : try LogTree.root(of: store, size: checkpoint.size)
            guard root == checkpoint.root else {
                throw failure("(\(checkpoint.size.counted("event"))) does not have the root of the log's first \(checkpoint.size.counted("event")): an event there was modified, removed, inserted or reordered, or the checkpoint was forged")
            }
        }
        return recorded.count
    }

    /// What the store records of a checkpoint kept outside it: when one of the store's seals
    /// made it (same size and time), the store must record exactly its text, byte for byte.
    /// - Returns: the recorded checkpoint's number, or nil when no seal of this store made it
    ///   (a checkpoint of another copy of the log, e.g. before `migrate`).
    /// - Throws: ``RecordedCheckpointFailure`` when the record was removed or differs.
    public static func match(_ store: any EventStore, external: Checkpoint) throws -> Int64? {
        guard let recording = store as? any CheckpointRecording,
              let seal = try (store as? any AuditableEventStore)?.seals().first(where: { UInt64($0.events) == external.size && $0.sealedAt == external.time })
        else { return nil }
        let recorded = try recording.recordedCheckpoints().filter { $0.seal == seal.number }
        guard !recorded.isEmpty else {
            throw RecordedCheckpointFailure(number: nil, reason: "for seal \(seal.number) (\(external.size.counted("event")) at \(external.time)) is not recorded in the store: it was removed")
        }
        // Byte for byte: `String`'s == would take two texts of the same characters in other
        // Unicode forms as equal.
        guard let same = recorded.first(where: { $0.note.utf8.elementsEqual(external.note) }) else {
            throw RecordedCheckpointFailure(number: recorded[0].number, reason: "for seal \(seal.number) differs from the checkpoint file: the file or the store's record was changed (with --public-key, a file its signer did not sign is refused before this)")
        }
        return same.number
    }
}

/// Why a checkpoint the store recorded does not hold.
public struct RecordedCheckpointFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The recorded checkpoint's number (nil: a checkpoint that should be recorded is not).
    public let number: Int64?
    /// What is wrong.
    public let reason: String

    /// A failure of recorded checkpoint `number`.
    public init(number: Int64?, reason: String) {
        self.number = number
        self.reason = reason
    }

    public var description: String { "the recorded checkpoint\(number.map { " \($0)" } ?? "") \(reason)" }
}
