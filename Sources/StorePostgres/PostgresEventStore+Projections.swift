import EventLog
import Foundation

extension PostgresEventStore: ProjectionStore {
    public func projectionStatuses() throws -> [ProjectionStatus] {
        try withViews { connection in
            let result = try connection.query(
                "SELECT name, generation, version, position, active FROM \(schema.quoted).projections ORDER BY name, generation",
                types: [], binds: PostgresBinds())
            return try (0..<result.rowCount).map { row in
                ProjectionStatus(name: result.string(row: row, column: 0), generation: Int(try result.int32(row: row, column: 1)),
                                 version: Int(try result.int32(row: row, column: 2)), position: try result.int64(row: row, column: 3),
                                 isActive: try result.bool(row: row, column: 4))
            }
        }
    }

    public func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus {
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int4: Int32(version))
        // Two projectors starting at once may pick the same number; the primary key refuses
        // the second, which then takes the next.
        for _ in 0..<10 {
            do {
                return try withViews { connection in
                    let result = try connection.query("""
                        INSERT INTO \(schema.quoted).projections (name, generation, version, position, active, updated_at)
                        SELECT $1, coalesce(max(generation), 0) + 1, $2, 0, false, now() FROM \(schema.quoted).projections WHERE name = $1
                        RETURNING generation
                        """, types: [PostgresType.text, PostgresType.int4], binds: binds)
                    return ProjectionStatus(name: projection, generation: Int(try result.int32(row: 0, column: 0)), version: version,
                                            position: 0, isActive: false)
                }
            } catch is GenerationTaken {
                continue
            }
        }
        throw EventStoreError.unavailable("could not start a new generation of view '\(projection)' (other projectors kept taking the number)")
    }

    public func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
        guard !keys.isEmpty else { return [:] }
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int4: Int32(generation))
        binds.append(textArray: keys)
        return try withViews { connection in
            let result = try connection.query(Self.documentsByKeySQL(schema.quoted), types: [PostgresType.text, PostgresType.int4, PostgresType.textArray], binds: binds)
            var found: [String: Data] = [:]
            for row in 0..<result.rowCount { found[result.string(row: row, column: 0)] = result.data(row: row, column: 1) }
            return found
        }
    }

    /// `columns` of the documents of view `$1`, generation `$2`, with the keys of `$3`: one
    /// primary-key lookup per key. Why not `key = ANY($3)`: a plan made while the table is
    /// empty or not yet analysed (a fresh store, the first minute of `serve`) matches only
    /// `(projection, generation)` in the index and filters every document of the view by key,
    /// a read of the whole view per request; `LIMIT 1` keeps each lookup its own index scan.
    static func documentsByKeySQL(_ schema: String, columns: String = "wanted.key, document") -> String {
        """
        SELECT \(columns) FROM unnest($3::text[]) AS wanted(key) CROSS JOIN LATERAL (
            SELECT ctid, document FROM \(schema).view_documents
            WHERE projection = $1 AND generation = $2 AND key = wanted.key LIMIT 1) AS kept
        """
    }

    public func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)] {
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int4: Int32(generation))
        binds.append(text: key)
        binds.append(int8: Int64(limit))
        return try withViews { connection in
            // COLLATE "C": byte order, the same order SQLite uses, whatever the database's locale.
            let result = try connection.query("""
                SELECT key, document FROM \(schema.quoted).view_documents
                WHERE projection = $1 AND generation = $2 AND key COLLATE "C" > $3 ORDER BY key COLLATE "C" LIMIT $4
                """, types: [PostgresType.text, PostgresType.int4, PostgresType.text, PostgresType.int8], binds: binds)
            return (0..<result.rowCount).map { (result.string(row: $0, column: 0), result.data(row: $0, column: 1)) }
        }
    }

    public func commit(_ changes: ViewChanges) throws {
        let s = schema.quoted
        try withViews { connection in
            // The commit waits for the WAL flush, unlike the kept tree's extensions: a hot
            // standby receives only flushed WAL, and reads there (ReplicaReads) wait for the
            // view a read on the primary caught up; an asynchronous commit would keep them
            // waiting up to three WAL writer delays.
            try connection.execute("BEGIN")
            do {
                // Commits of one view take turns: an activation deletes the view's other
                // generations, which another projector may hold locked; without one lock taken
                // first, two activating projectors deadlock.
                var view = PostgresBinds()
                view.append(int4: PostgresSchema.viewCommitLockClass)
                view.append(text: schema.name + "/" + changes.projection)
                _ = try connection.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", types: [PostgresType.int4, PostgresType.text], binds: view)
                var key = PostgresBinds()
                key.append(text: changes.projection)
                key.append(int4: Int32(changes.generation))
                let keyTypes = [PostgresType.text, PostgresType.int4]
                let current = try connection.query(
                    "SELECT position FROM \(s).projections WHERE name = $1 AND generation = $2 FOR UPDATE", types: keyTypes, binds: key)
                let actual = current.rowCount == 0 ? nil : try current.int64(row: 0, column: 0)
                guard actual == changes.fromPosition else {
                    throw ProjectionStoreError.checkpointMoved(projection: changes.projection, generation: changes.generation,
                                                               expected: changes.fromPosition, actual: actual)
                }
                try changes.forEachPart { part in
                    let upserts = part.compactMap { change in change.document.map { (change.key, $0) } }
                    let deletions = part.filter { $0.document == nil }.map(\.key)
                    for chunk in stride(from: 0, to: upserts.count, by: 5_000).map({ Array(upserts[$0..<min($0 + 5_000, upserts.count)]) }) {
                        var binds = key
                        binds.append(textArray: chunk.map(\.0))
                        binds.append(jsonArray: chunk.map(\.1))
                        _ = try connection.query("""
                            INSERT INTO \(s).view_documents (projection, generation, key, document)
                            SELECT $1, $2, k, d FROM unnest($3::text[], $4::json[]) AS u(k, d)
                            ON CONFLICT (projection, generation, key) DO UPDATE SET document = excluded.document
                            """, types: keyTypes + [PostgresType.textArray, PostgresType.jsonArray], binds: binds)
                    }
                    if !deletions.isEmpty {
                        var binds = key
                        binds.append(textArray: deletions)
                        _ = try connection.query("""
                            DELETE FROM \(s).view_documents WHERE ctid = ANY(ARRAY(
                                \(Self.documentsByKeySQL(s, columns: "kept.ctid"))))
                            """, types: keyTypes + [PostgresType.textArray], binds: binds)
                    }
                }
                var move = key
                move.append(int8: changes.toPosition)
                _ = try connection.query(
                    "UPDATE \(s).projections SET position = $3, updated_at = now() WHERE name = $1 AND generation = $2",
                    types: keyTypes + [PostgresType.int8], binds: move)
                if changes.activate {
                    _ = try connection.query("DELETE FROM \(s).view_documents WHERE projection = $1 AND generation <> $2", types: keyTypes, binds: key)
                    _ = try connection.query("DELETE FROM \(s).projections WHERE name = $1 AND generation <> $2", types: keyTypes, binds: key)
                    _ = try connection.query("UPDATE \(s).projections SET active = true WHERE name = $1 AND generation = $2", types: keyTypes, binds: key)
                }
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    public func dropGeneration(of projection: String, generation: Int) throws {
        var key = PostgresBinds()
        key.append(text: projection)
        key.append(int4: Int32(generation))
        try withViews { connection in
            try connection.execute("BEGIN")
            do {
                _ = try connection.query("DELETE FROM \(schema.quoted).view_documents WHERE projection = $1 AND generation = $2",
                                         types: [PostgresType.text, PostgresType.int4], binds: key)
                _ = try connection.query("DELETE FROM \(schema.quoted).projections WHERE name = $1 AND generation = $2",
                                         types: [PostgresType.text, PostgresType.int4], binds: key)
                try connection.execute("COMMIT")
            } catch {
                _ = try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    /// Runs view work on a pooled connection, turning PostgreSQL failures into store errors;
    /// a primary-key clash (only ``startGeneration(of:version:)`` can cause one) becomes
    /// ``GenerationTaken``, on which it retries.
    private func withViews<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch let error as PostgresError {
            if error.sqlState?.rawValue == "23505" { throw GenerationTaken() }
            if error.kind == .connectionLost { pool.drain() }
            throw error.storeError(appending: false)
        }
    }
}

/// Another projector took the generation number this one was about to start.
private struct GenerationTaken: Error {}

