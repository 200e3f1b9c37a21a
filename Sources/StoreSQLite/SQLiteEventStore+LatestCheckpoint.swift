import EventLog
import Foundation

// MARK: - The newest recorded checkpoint (for `GET /v1/checkpoints/latest` and the proofs bound to it)

extension SQLiteEventStore {
    /// The newest recorded checkpoint: one row by the primary key, or nil when none was recorded.
    public func latestRecordedCheckpoint() throws -> RecordedCheckpoint? {
        try withConnection { connection in
            let statement = try connection.statement("SELECT checkpoint, seal, size, note, recorded_at FROM signed_checkpoints ORDER BY checkpoint DESC LIMIT 1")
            defer { statement.reset() }
            guard try statement.step() else { return nil }
            return RecordedCheckpoint(number: statement.int64(0), seal: statement.int64(1), size: UInt64(clamping: statement.int64(2)),
                                      note: statement.string(3), recordedAt: statement.string(4))
        }
    }
}
