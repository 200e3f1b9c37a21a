import EventLog
import Foundation

// MARK: - Archives (schema 9, docs/explanation/audit.md "Archives")

extension PostgresEventStore: ArchivingStore {
    public func archives() throws -> [ArchiveBoundary] {
        try withRetry { connection in
            let result = try connection.query("""
                SELECT archive, position, events, file_events, file_sha256, file_name, heads_sha256, tree_root, archived_at
                FROM \(schema.quoted).archives ORDER BY archive
                """, types: [], binds: PostgresBinds())
            return try (0..<result.rowCount).map { row in
                ArchiveBoundary(number: try result.int64(row: row, column: 0), position: try result.int64(row: row, column: 1),
                                events: try result.int64(row: row, column: 2), fileEvents: try result.int64(row: row, column: 3),
                                fileSHA256: result.string(row: row, column: 4), fileName: result.string(row: row, column: 5),
                                headsSHA256: result.string(row: row, column: 6), treeRoot: result.string(row: row, column: 7),
                                archivedAt: result.string(row: row, column: 8))
            }
        }
    }

    public func archivedHeads() throws -> StreamHeads {
        try withRetry { connection in
            let result = try connection.query("SELECT stream_id, version, hash FROM \(schema.quoted).archived_heads", types: [], binds: PostgresBinds())
            var heads = StreamHeads()
            for row in 0..<result.rowCount {
                heads[result.string(row: row, column: 0)] = try Self.head(result, row: row, version: 1, hash: 2)
            }
            return heads
        }
    }

    public func archivedHead(of stream: String) throws -> StreamHeads.Head? {
        try archivedState(of: stream)?.head
    }

    public func archivedState(of stream: String) throws -> (head: StreamHeads.Head, state: Data?)? {
        var binds = PostgresBinds()
        binds.append(text: stream)
        return try withRetry { connection in
            let result = try connection.query("SELECT version, hash, state FROM \(schema.quoted).archived_heads WHERE stream_id = $1",
                                              types: [PostgresType.text], binds: binds)
            guard result.rowCount == 1 else { return nil }
            return (try Self.head(result, row: 0, version: 0, hash: 1), result.isNull(row: 0, column: 2) ? nil : result.data(row: 0, column: 2))
        }
    }

    /// For a stream with archived events and none kept: the position before the latest
    /// boundary (every archived event is below it), which an erasure then covers; else nil.
    /// Inside the erasure's transaction, on its connection.
    func archivedThrough(stream: String, _ connection: PostgresConnection) throws -> Int64? {
        var binds = PostgresBinds()
        binds.append(text: stream)
        let result = try connection.query("""
            SELECT (SELECT max(position) - 1 FROM \(schema.quoted).archives)
            WHERE EXISTS (SELECT 1 FROM \(schema.quoted).archived_heads WHERE stream_id = $1)
            """, types: [PostgresType.text], binds: binds)
        guard result.rowCount == 1, !result.isNull(row: 0, column: 0) else { return nil }
        return try result.int64(row: 0, column: 0)
    }

    /// Replaces the decision state kept beside a stream's archived head, inside an erasure's
    /// transaction; a stream with no archived head has none, and nothing changes.
    func replaceArchivedState(_ state: Data, stream: String, _ connection: PostgresConnection) throws {
        var binds = PostgresBinds()
        binds.append(text: String(decoding: state, as: UTF8.self))
        binds.append(text: stream)
        _ = try connection.query("UPDATE \(schema.quoted).archived_heads SET state = $1 WHERE stream_id = $2",
                                 types: [PostgresType.text, PostgresType.text], binds: binds)
    }

    private static func head(_ result: PostgresResult, row: Int, version: Int, hash: Int) throws -> StreamHeads.Head {
        guard let bytes = [UInt8](hexadecimal: result.string(row: row, column: hash)), bytes.count == 32 else {
            throw EventStoreError.corrupt("an archived stream head has a malformed hash")
        }
        return StreamHeads.Head(version: try result.int64(row: row, column: version), chainHash: bytes)
    }

    /// In one transaction on one connection, never retried on another (it may have committed).
    @discardableResult
    public func recordArchive(_ boundary: ArchiveBoundary, heads: StreamHeads, states: [StreamKey: Data]) throws -> Int64 {
        let lease: ConnectionPool.Lease
        do {
            lease = try pool.take()
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
        let connection = lease.connection
        var committing = false
        do {
            _ = try connection.execute("BEGIN")
            // Detaching a partition waits for every reader and append of the events table and holds
            // new ones back until commit: a bounded wait, then a clear error and nothing archived.
            _ = try connection.execute("SET LOCAL lock_timeout = '\(Self.archiveLockTimeout)'")
            // One archiver at a time; appends and readers are not blocked (until the detach).
            _ = try connection.execute("LOCK TABLE \(schema.quoted).archives IN EXCLUSIVE MODE")
            guard try Self.layout(schema: schema, on: connection) != .singleTable else {
                throw EventStoreError.invalidInput(Self.singleTableArchiveRefusal(schema: schema.name))
            }
            let last = try connection.query("SELECT coalesce(max(archive), 0)::bigint FROM \(schema.quoted).archives", types: [], binds: PostgresBinds())
            let lastNumber = try last.int64(row: 0, column: 0)
            guard lastNumber == boundary.number - 1 else {
                throw EventStoreError.wrongExpectedVersion(stream: "$archives", expected: .exactly(boundary.number - 1), actual: lastNumber)
            }
            var below = PostgresBinds()
            below.append(int8: boundary.position)
            let counted = try connection.query("SELECT count(*) FROM \(schema.quoted).events WHERE position < $1", types: [PostgresType.int8], binds: below)
            let rows = try counted.int64(row: 0, column: 0)
            guard rows == boundary.fileEvents else {
                throw EventStoreError.corrupt("the events table holds \(rows) rows below position \(boundary.position), and the archive holds \(boundary.fileEvents): nothing was removed")
            }
            var record = PostgresBinds()
            record.append(int8: boundary.number)
            record.append(int8: boundary.position)
            record.append(int8: boundary.events)
            record.append(int8: boundary.fileEvents)
            record.append(text: boundary.fileSHA256)
            record.append(text: boundary.fileName)
            record.append(text: boundary.headsSHA256)
            record.append(text: boundary.treeRoot)
            record.append(text: boundary.archivedAt)
            _ = try connection.query("""
                INSERT INTO \(schema.quoted).archives (archive, position, events, file_events, file_sha256, file_name, heads_sha256, tree_root, archived_at)
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                """, types: [PostgresType.int8, PostgresType.int8, PostgresType.int8, PostgresType.int8, PostgresType.text,
                             PostgresType.text, PostgresType.text, PostgresType.text, PostgresType.text], binds: record)
            _ = try connection.execute("DELETE FROM \(schema.quoted).archived_heads")
            let sorted = heads.sorted
            var carried = PostgresBinds()
            carried.append(textArray: sorted.map(\.stream))
            carried.append(textArray: sorted.map { String($0.head.version) })
            carried.append(textArray: sorted.map { $0.head.hash.hexString })
            carried.append(textArray: sorted.map { states[StreamKey($0.stream)].map { String(decoding: $0, as: UTF8.self) } ?? "" })
            _ = try connection.query("""
                INSERT INTO \(schema.quoted).archived_heads (stream_id, version, hash, state)
                SELECT s, v::bigint, h, nullif(d, '') FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS t(s, v, h, d)
                """, types: [PostgresType.textArray, PostgresType.textArray, PostgresType.textArray, PostgresType.textArray], binds: carried)
            // Schema 10: the partitions wholly below the boundary are detached and dropped; the
            // rows below it in the partition it falls in are deleted (docs/explanation/audit.md "Archives").
            try dropPartitions(below: boundary.position, on: connection)
            _ = try connection.query("DELETE FROM \(schema.quoted).events WHERE position < $1", types: [PostgresType.int8], binds: below)
            committing = true
            _ = try connection.execute("COMMIT")
            pool.giveBack(lease)
            return rows
        } catch let error as PostgresError {
            if error.kind == .connectionLost {
                if committing { throw EventStoreError.outcomeUnknown("the connection to \(connection.server) was lost while the archive committed: \(error.message)") }
                throw error.storeError(appending: false)
            }
            do {
                _ = try connection.execute("ROLLBACK")
                pool.giveBack(lease)
            } catch _ {}
            throw error.storeError(appending: false)
        } catch {
            do {
                _ = try connection.execute("ROLLBACK")
                pool.giveBack(lease)
            } catch _ {}
            throw error
        }
    }
}
