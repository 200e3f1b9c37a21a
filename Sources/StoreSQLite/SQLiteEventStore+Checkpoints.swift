import EventLog
import Foundation

// MARK: - Recorded checkpoints (schema 6, docs/explanation/audit.md)

extension SQLiteEventStore: CheckpointRecording {
    public func recordedCheckpoints() throws -> [RecordedCheckpoint] {
        try withConnection { connection in
            let statement = try connection.statement("SELECT checkpoint, seal, size, note, recorded_at FROM signed_checkpoints ORDER BY checkpoint")
            defer { statement.reset() }
            var found: [RecordedCheckpoint] = []
            while try statement.step() {
                found.append(RecordedCheckpoint(number: statement.int64(0), seal: statement.int64(1), size: UInt64(clamping: statement.int64(2)),
                                                note: statement.string(3), recordedAt: statement.string(4)))
            }
            return found
        }
    }

    public func recordCheckpoint(seal: Int64, checkpoint: Checkpoint) throws -> RecordedCheckpoint {
        try withConnection { connection in
            try connection.transaction {
                let number = (try connection.scalarInt("SELECT max(checkpoint) FROM signed_checkpoints") ?? 0) + 1
                let recorded = RecordedCheckpoint(number: number, seal: seal, size: checkpoint.size, note: checkpoint.text,
                                                  recordedAt: Timestamp.format(Date()))
                let insert = try connection.statement("INSERT INTO signed_checkpoints (checkpoint, seal, size, note, recorded_at) VALUES (?1, ?2, ?3, ?4, ?5)")
                try insert.bind(recorded.number, at: 1)
                try insert.bind(seal, at: 2)
                try insert.bind(Int64(clamping: checkpoint.size), at: 3)
                try insert.bind(recorded.note, at: 4)
                try insert.bind(recorded.recordedAt, at: 5)
                try insert.run()
                return recorded
            }
        }
    }
}
