import EventLog
import Foundation

// MARK: - Recorded checkpoints (schema 6, docs/explanation/audit.md)

extension PostgresEventStore: CheckpointRecording {
    public func recordedCheckpoints() throws -> [RecordedCheckpoint] {
        try withRetry { connection in
            let result = try connection.query("SELECT checkpoint, seal, size, note, recorded_at FROM \(schema.quoted).signed_checkpoints ORDER BY checkpoint",
                                              types: [], binds: PostgresBinds())
            return try (0..<result.rowCount).map { row in
                RecordedCheckpoint(number: try result.int64(row: row, column: 0), seal: try result.int64(row: row, column: 1),
                                   size: UInt64(clamping: try result.int64(row: row, column: 2)), note: result.string(row: row, column: 3),
                                   recordedAt: result.string(row: row, column: 4))
            }
        }
    }

    public func recordCheckpoint(seal: Int64, checkpoint: Checkpoint) throws -> RecordedCheckpoint {
        let time = Timestamp.format(Date())
        var binds = PostgresBinds()
        binds.append(int8: seal)
        binds.append(int8: Int64(clamping: checkpoint.size))
        binds.append(text: checkpoint.text)
        binds.append(text: time)
        // Not retried on a new connection: the insert may have committed.
        let number = try withoutRetry { connection in
            // The next number; the primary key settles a race between two sealers.
            let result = try connection.query("""
                INSERT INTO \(schema.quoted).signed_checkpoints (checkpoint, seal, size, note, recorded_at)
                SELECT coalesce(max(checkpoint), 0) + 1, $1, $2, $3, $4 FROM \(schema.quoted).signed_checkpoints
                RETURNING checkpoint
                """, types: [PostgresType.int8, PostgresType.int8, PostgresType.text, PostgresType.text], binds: binds)
            return try result.int64(row: 0, column: 0)
        }
        return RecordedCheckpoint(number: number, seal: seal, size: checkpoint.size, note: checkpoint.text, recordedAt: time)
    }

    /// Runs a write on a pooled connection once, turning PostgreSQL's errors into ``EventStoreError``.
    private func withoutRetry<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
    }
}
