import EventLog
import Foundation

// MARK: - The newest recorded checkpoint (for `GET /v1/checkpoints/latest` and the proofs bound to it)

extension PostgresEventStore {
    /// The newest recorded checkpoint: one row by the primary key, or nil when none was recorded.
    public func latestRecordedCheckpoint() throws -> RecordedCheckpoint? {
        try withRetry { connection in
            let result = try connection.query("SELECT checkpoint, seal, size, note, recorded_at FROM \(schema.quoted).signed_checkpoints ORDER BY checkpoint DESC LIMIT 1",
                                              types: [], binds: PostgresBinds())
            guard result.rowCount > 0 else { return nil }
            return RecordedCheckpoint(number: try result.int64(row: 0, column: 0), seal: try result.int64(row: 0, column: 1),
                                      size: UInt64(clamping: try result.int64(row: 0, column: 2)), note: result.string(row: 0, column: 3),
                                      recordedAt: result.string(row: 0, column: 4))
        }
    }
}
