import CSQLite
import EventLog
import Foundation
import StoreSQLite

/// The SQLite store against the best plain use of sqlite3's C API on the same rows, the same
/// schema (the raw runs write into a file the store created) and the same pragmas
/// (WAL, synchronous=FULL).
struct SQLiteBenchmark {
    let directory: String
    private var fileNumber = 0

    init(directory: String) { self.directory = directory }

    /// A path for a new database file (removed first if present).
    mutating func freshPath(_ label: String) -> String {
        fileNumber += 1
        let path = "\(directory)/\(label)-\(fileNumber).sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        return path
    }

    /// Removes a database file and its WAL files.
    func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    // MARK: - evtool

    /// Appends `rows` through the store, `batchSize` rows per append, each with its expected version.
    func ourAppend(_ rows: [BenchRow], batchSize: Int, path: String) throws -> Double {
        let store = try SQLiteEventStore(path: path)
        return try Measurement.seconds {
            var start = 0
            while start < rows.count {
                let end = min(start + batchSize, rows.count)
                let first = rows[start]
                // A batch is one stream's; the workload builds batches that way.
                try store.append(rows[start..<end].map(\.event), to: first.stream, expectedVersion: .exactly(first.version - 1))
                start = end
            }
        }
    }

    /// Reads the whole log through the store in batches; returns seconds and events read.
    func ourRead(path: String, limit: Int64 = .max, batchSize: Int = 1_000) throws -> (seconds: Double, count: Int) {
        try Measurement.timedRead(try SQLiteEventStore(path: path), limit: limit, batchSize: batchSize)
    }

    // MARK: - Raw sqlite3

    /// Opens a raw connection to a file the store created, with the store's pragmas.
    private func rawOpen(_ path: String) -> OpaquePointer {
        _ = try? SQLiteEventStore(path: path)   // the same schema, created by the store
        var db: OpaquePointer?
        guard sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let db else { fatalError("raw open failed") }
        rawExec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL")
        return db
    }

    private func rawExec(_ db: OpaquePointer, _ sql: String) {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else { fatalError("raw exec failed: \(String(cString: sqlite3_errmsg(db)))") }
    }

    private func rawPrepare(_ db: OpaquePointer, _ sql: String) -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &statement, nil) == SQLITE_OK, let statement else { fatalError("raw prepare failed") }
        return statement
    }

    private static let insertSQL = """
        INSERT INTO events (stream_id, version, event_id, type, data, metadata, recorded_at, hash) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
        """

    /// Inserts `rows` with one prepared statement; in one transaction, or one per row.
    func rawInsert(_ rows: [BenchRow], path: String, oneTransaction: Bool) -> Double {
        let db = rawOpen(path)
        defer { sqlite3_close_v2(db) }
        let statement = rawPrepare(db, Self.insertSQL)
        defer { sqlite3_finalize(statement) }
        let recordedAt = Timestamp.format(Date())
        // The same rows as the store writes, hash chain included; the raw loop is handed them
        // ready-made (it measures inserting, not hashing).
        var heads: [String: [UInt8]] = [:]
        let hasher = EventChain.Hasher()
        let hashes = rows.map { row -> String in
            let digest = hasher.hash(previous: heads[row.stream] ?? EventChain.genesis, stream: row.stream, version: row.version,
                                     id: row.event.id, type: row.event.type, recordedAt: recordedAt,
                                     data: row.event.data, metadata: row.event.metadata)
            heads[row.stream] = digest
            return digest.hexString
        }
        return Measurement.seconds {
            if oneTransaction { rawExec(db, "BEGIN") }
            recordedAt.withCString { time in
                for (row, hash) in zip(rows, hashes) {
                    _ = hash.withCString { sqlite3_bind_text(statement, 8, $0, 64, evtool_sqlite_transient()) }
                    _ = row.stream.withCString { sqlite3_bind_text(statement, 1, $0, -1, evtool_sqlite_transient()) }
                    sqlite3_bind_int64(statement, 2, row.version)
                    _ = row.idText.withCString { sqlite3_bind_text(statement, 3, $0, 36, evtool_sqlite_transient()) }
                    _ = row.event.type.withCString { sqlite3_bind_text(statement, 4, $0, -1, evtool_sqlite_transient()) }
                    row.event.data.withUnsafeBytes {
                        sqlite3_bind_text(statement, 5, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32($0.count), evtool_sqlite_static())
                        row.event.metadata.withUnsafeBytes {
                            sqlite3_bind_text(statement, 6, $0.baseAddress!.assumingMemoryBound(to: CChar.self), Int32($0.count), evtool_sqlite_static())
                            sqlite3_bind_text(statement, 7, time, 27, evtool_sqlite_static())
                            guard sqlite3_step(statement) == SQLITE_DONE else { fatalError("raw insert failed: \(String(cString: sqlite3_errmsg(db)))") }
                            sqlite3_reset(statement)
                        }
                    }
                }
            }
            if oneTransaction { rawExec(db, "COMMIT") }
        }
    }

    /// Steps through every row of the log, touching each column's bytes.
    func rawRead(path: String) -> (seconds: Double, count: Int) {
        let db = rawOpen(path)
        defer { sqlite3_close_v2(db) }
        let statement = rawPrepare(db, "SELECT position, stream_id, version, event_id, type, data, metadata, recorded_at, hash FROM events ORDER BY position")
        defer { sqlite3_finalize(statement) }
        var count = 0
        var checksum = 0
        let seconds = Measurement.seconds {
            while sqlite3_step(statement) == SQLITE_ROW {
                checksum &+= Int(sqlite3_column_int64(statement, 0)) &+ Int(sqlite3_column_int64(statement, 2))
                for column: Int32 in [1, 3, 4, 5, 6, 7, 8] {
                    if let text = sqlite3_column_text(statement, column) {
                        checksum &+= Int(text.pointee) &+ Int(sqlite3_column_bytes(statement, column))
                    }
                }
                count += 1
            }
        }
        precondition(checksum != 0 || count == 0)
        return (seconds, count)
    }
}
