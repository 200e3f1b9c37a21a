import EventLog
import Foundation

extension PostgresEventStore: ProjectionStore {
    public func projectionStatuses() throws -> [ProjectionStatus] {
        try withRetry { connection in
            let result = try connection.query(
                "SELECT name, generation::bigint, version::bigint, position, active FROM \(schema.quoted).projections ORDER BY name, generation",
                types: [], binds: PostgresBinds())
            return try (0..<result.rowCount).map { row in
                ProjectionStatus(
                    name: result.string(row: row, column: 0), generation: Int(try result.int64(row: row, column: 1)),
                    version: Int(try result.int64(row: row, column: 2)), position: try result.int64(row: row, column: 3),
                    isActive: try result.bool(row: row, column: 4))
            }
        }
    }

    public func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus {
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int8: Int64(version))
        let generation = try inTransaction { connection -> Int64 in
            // Two projectors starting generations of one projection at once take turns.
            _ = try connection.query(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.projectionLockClass), hashtext($1))",
                types: [PostgresType.text], binds: binds.first)
            let result = try connection.query("""
                INSERT INTO \(schema.quoted).projections (name, generation, version, position, active, updated_at)
                SELECT $1, coalesce(max(generation), 0) + 1, $2, 0, false, now() FROM \(schema.quoted).projections WHERE name = $1
                RETURNING generation::bigint
                """, types: [PostgresType.text, PostgresType.int8], binds: binds)
            return try result.int64(row: 0, column: 0)
        }
        return ProjectionStatus(name: projection, generation: Int(generation), version: version, position: 0, isActive: false)
    }

    public func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int8: Int64(generation))
        binds.append(textArray: keys)
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT key, document FROM \(schema.quoted).view_documents
                WHERE projection = $1 AND generation = $2 AND key = ANY($3)
                """, types: [PostgresType.text, PostgresType.int8, PostgresType.textArray], binds: binds)
            var found: [String: Data] = [:]
            for row in 0..<result.rowCount { found[result.string(row: row, column: 0)] = result.data(row: row, column: 1) }
            return found
        }
    }

    public func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)] {
        guard limit > 0 else { return [] }
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int8: Int64(generation))
        binds.append(text: key)
        binds.append(int8: Int64(limit))
        return try withRetry { connection in
            // COLLATE "C": keys in byte order, as SQLite orders them, whatever the database's collation.
            let result = try connection.query("""
                SELECT key, document FROM \(schema.quoted).view_documents
                WHERE projection = $1 AND generation = $2 AND key COLLATE "C" > $3 ORDER BY key COLLATE "C" LIMIT $4
                """, types: [PostgresType.text, PostgresType.int8, PostgresType.text, PostgresType.int8], binds: binds)
            return (0..<result.rowCount).map { (result.string(row: $0, column: 0), result.data(row: $0, column: 1)) }
        }
    }

    public func commit(_ changes: ViewChanges) throws {
        var key = PostgresBinds()
        key.append(text: changes.projection)
        key.append(int8: Int64(changes.generation))
        var upserts: [(String, Data)] = [], deletions: [String] = []
        for (documentKey, document) in changes.documents {
            if let document { upserts.append((documentKey, document)) } else { deletions.append(documentKey) }
        }
        try inTransaction { connection in
            // The checkpoint is a compare-and-set: the row lock makes a concurrent projector wait
            // and then see the position this one wrote.
            let current = try connection.query("""
                SELECT position FROM \(schema.quoted).projections WHERE name = $1 AND generation = $2 FOR UPDATE
                """, types: [PostgresType.text, PostgresType.int8], binds: key)
            let actual = current.rowCount == 0 ? nil : try current.int64(row: 0, column: 0)
            guard actual == changes.fromPosition else {
                throw ProjectionStoreError.checkpointMoved(
                    projection: changes.projection, generation: changes.generation, expected: changes.fromPosition, actual: actual)
            }
            if !upserts.isEmpty {
                var binds = key
                binds.append(textArray: upserts.map(\.0))
                binds.append(textArray: upserts.map { String(decoding: $0.1, as: UTF8.self) })
                _ = try connection.query("""
                    INSERT INTO \(schema.quoted).view_documents (projection, generation, key, document)
                    SELECT $1, $2, k, d FROM unnest($3::text[], $4::text[]) AS u(k, d)
                    ON CONFLICT (projection, generation, key) DO UPDATE SET document = excluded.document
                    """, types: [PostgresType.text, PostgresType.int8, PostgresType.textArray, PostgresType.textArray], binds: binds)
            }
            if !deletions.isEmpty {
                var binds = key
                binds.append(textArray: deletions)
                _ = try connection.query("""
                    DELETE FROM \(schema.quoted).view_documents WHERE projection = $1 AND generation = $2 AND key = ANY($3)
                    """, types: [PostgresType.text, PostgresType.int8, PostgresType.textArray], binds: binds)
            }
            var binds = key
            binds.append(int8: changes.toPosition)
            _ = try connection.query("""
                UPDATE \(schema.quoted).projections SET position = $3, updated_at = now() WHERE name = $1 AND generation = $2
                """, types: [PostgresType.text, PostgresType.int8, PostgresType.int8], binds: binds)
            if changes.activate {
                for sql in [
                    "DELETE FROM \(schema.quoted).view_documents WHERE projection = $1 AND generation <> $2",
                    "DELETE FROM \(schema.quoted).projections WHERE name = $1 AND generation <> $2",
                    "UPDATE \(schema.quoted).projections SET active = true WHERE name = $1 AND generation = $2",
                ] {
                    _ = try connection.query(sql, types: [PostgresType.text, PostgresType.int8], binds: key)
                }
            }
        }
    }

    public func dropGeneration(of projection: String, generation: Int) throws {
        var key = PostgresBinds()
        key.append(text: projection)
        key.append(int8: Int64(generation))
        try inTransaction { connection in
            for sql in ["DELETE FROM \(schema.quoted).view_documents WHERE projection = $1 AND generation = $2",
                        "DELETE FROM \(schema.quoted).projections WHERE name = $1 AND generation = $2"] {
                _ = try connection.query(sql, types: [PostgresType.text, PostgresType.int8], binds: key)
            }
        }
    }

    /// Runs `body` in a transaction on a pooled connection: commits when it returns, rolls
    /// back when it throws and rethrows the first error.
    /// - Throws: what `body` throws; ``EventStoreError/unavailable(_:)`` for server failures
    ///   (a connection lost during COMMIT included: the caller reloads and carries on).
    func inTransaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let lease: ConnectionPool.Lease
        do { lease = try pool.take() } catch let error as PostgresError { throw error.storeError(appending: false) }
        let connection = lease.connection
        do {
            try connection.execute("BEGIN")
            let value = try body(connection)
            try connection.execute("COMMIT")
            pool.giveBack(lease)
            return value
        } catch {
            // A failed ROLLBACK means the connection is gone: it is not returned to the pool.
            if (try? connection.execute("ROLLBACK")) != nil { pool.giveBack(lease) }
            if let error = error as? PostgresError { throw error.storeError(appending: false) }
            throw error
        }
    }
}
