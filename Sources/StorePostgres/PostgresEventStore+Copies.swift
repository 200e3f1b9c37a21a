import EventLog
import Foundation

// MARK: - An unfinished copy into this schema (`migrate`), recorded in `unfinished_copy` (schema 16)

extension PostgresEventStore: CopyRecording {
    public func unfinishedCopy() throws -> String? {
        try withRetry { connection in
            let result = try connection.execute("SELECT source FROM \(schema.quoted).unfinished_copy WHERE id = 1")
            return result.rowCount > 0 ? result.string(row: 0, column: 0) : nil
        }
    }

    public func recordUnfinishedCopy(from source: String) throws {
        var binds = PostgresBinds()
        binds.append(text: source)
        try withRetry { connection in
            _ = try connection.query("""
                INSERT INTO \(schema.quoted).unfinished_copy (id, source) VALUES (1, $1)
                ON CONFLICT (id) DO UPDATE SET source = excluded.source, started_at = now()
                """, types: [PostgresType.text], binds: binds)
        }
    }

    public func finishCopy() throws {
        try withRetry { connection in
            _ = try connection.execute("DELETE FROM \(schema.quoted).unfinished_copy")
        }
    }
}
