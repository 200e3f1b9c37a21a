import EventLog
import Foundation

extension SQLiteEventStore: ProjectionStore {
    public func projectionStatuses() throws -> [ProjectionStatus] {
        try withConnection { connection in
            let statement = try connection.statement(
                "SELECT name, generation, version, position, active FROM projections ORDER BY name, generation")
            defer { statement.reset() }
            var statuses: [ProjectionStatus] = []
            while try statement.step() {
                statuses.append(ProjectionStatus(
                    name: statement.string(0), generation: Int(statement.int64(1)), version: Int(statement.int64(2)),
                    position: statement.int64(3), isActive: statement.int64(4) == 1))
            }
            return statuses
        }
    }

    public func startGeneration(of projection: String, version: Int) throws -> ProjectionStatus {
        try withConnection { connection in
            try connection.transaction {
                let generation = (try connection.scalarInt("SELECT max(generation) FROM projections WHERE name = ?1") {
                    try $0.bind(projection, at: 1)
                } ?? 0) + 1
                let insert = try connection.statement(
                    "INSERT INTO projections (name, generation, version, position, active, updated_at) VALUES (?1, ?2, ?3, 0, 0, ?4)")
                try insert.bind(projection, at: 1)
                try insert.bind(generation, at: 2)
                try insert.bind(Int64(version), at: 3)
                try insert.bind(Timestamp.format(Date()), at: 4)
                try insert.run()
                return ProjectionStatus(name: projection, generation: Int(generation), version: version, position: 0, isActive: false)
            }
        }
    }

    public func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
        try withReadConnection { connection in
            let statement = try connection.statement(
                "SELECT document FROM view_documents WHERE projection = ?1 AND generation = ?2 AND key = ?3")
            defer { statement.reset() }
            try statement.bind(projection, at: 1)
            try statement.bind(Int64(generation), at: 2)
            // One snapshot for all the keys: a view's commit lands wholly before or after.
            func lookUp() throws -> [String: Data] {
                var found: [String: Data] = [:]
                for key in keys {
                    try statement.bind(key, at: 3)
                    if try statement.step() { found[key] = statement.data(0) }
                    statement.rewind()
                }
                return found
            }
            return keys.count > 1 ? try connection.transaction("DEFERRED", lookUp) : try lookUp()
        }
    }

    public func documents(of projection: String, generation: Int, after key: String, limit: Int) throws -> [(key: String, document: Data)] {
        try withReadConnection { connection in
            let statement = try connection.statement("""
                SELECT key, document FROM view_documents
                WHERE projection = ?1 AND generation = ?2 AND key > ?3 ORDER BY key LIMIT ?4
                """)
            defer { statement.reset() }
            try statement.bind(projection, at: 1)
            try statement.bind(Int64(generation), at: 2)
            try statement.bind(key, at: 3)
            try statement.bind(Int64(limit), at: 4)
            var rows: [(key: String, document: Data)] = []
            while try statement.step() { rows.append((statement.string(0), statement.data(1))) }
            return rows
        }
    }

    public func commit(_ changes: ViewChanges) throws {
        try viewTransaction { connection in
            let actual = try connection.scalarInt("SELECT position FROM projections WHERE name = ?1 AND generation = ?2") {
                try $0.bind(changes.projection, at: 1)
                try $0.bind(Int64(changes.generation), at: 2)
            }
            guard actual == changes.fromPosition else {
                throw ProjectionStoreError.checkpointMoved(
                    projection: changes.projection, generation: changes.generation, expected: changes.fromPosition, actual: actual)
            }
            let upsert = try connection.statement("""
                INSERT INTO view_documents (projection, generation, key, document) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (projection, generation, key) DO UPDATE SET document = excluded.document
                """)
            let delete = try connection.statement(
                "DELETE FROM view_documents WHERE projection = ?1 AND generation = ?2 AND key = ?3")
            for statement in [upsert, delete] {
                try statement.bind(changes.projection, at: 1)
                try statement.bind(Int64(changes.generation), at: 2)
            }
            try changes.forEachPart { part in
                // In key order: each insert lands beside the previous one in the index.
                for (key, document) in part.sorted(by: { $0.key < $1.key }) {
                    if let document {
                        try upsert.bind(key, at: 3)
                        try upsert.run(bindingText: document, at: 4)
                    } else {
                        try delete.bind(key, at: 3)
                        try delete.run()
                    }
                }
            }
            let update = try connection.statement(
                "UPDATE projections SET position = ?3, updated_at = ?4 WHERE name = ?1 AND generation = ?2")
            try update.bind(changes.projection, at: 1)
            try update.bind(Int64(changes.generation), at: 2)
            try update.bind(changes.toPosition, at: 3)
            try update.bind(Timestamp.format(Date()), at: 4)
            try update.run()
            if changes.activate {
                try Self.activate(changes.projection, generation: changes.generation, connection)
            }
        }
    }

    public func dropGeneration(of projection: String, generation: Int) throws {
        try viewTransaction { connection in
            for sql in ["DELETE FROM view_documents WHERE projection = ?1 AND generation = ?2",
                        "DELETE FROM projections WHERE name = ?1 AND generation = ?2"] {
                let statement = try connection.statement(sql)
                try statement.bind(projection, at: 1)
                try statement.bind(Int64(generation), at: 2)
                try statement.run()
            }
        }
    }

    /// One write transaction over views and checkpoints. The pages that replaced or dropped view
    /// documents free are not zeroed first: Debian builds SQLite with `secure_delete` on, which
    /// wrote every freed page again and made dropping an old generation of the views take
    /// 0.46 s instead of 0.03 s. View documents hold only what the log holds; `evtool forget`
    /// rebuilds the views and then rewrites the whole file (`VACUUM`), so an erased user's
    /// data does not linger in free pages. Writes to the log keep the build's default.
    private func viewTransaction<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try withConnection { connection in
            let previous = try connection.scalarInt("PRAGMA secure_delete") ?? 1
            try connection.execute("PRAGMA secure_delete = FAST")
            defer { _ = try? connection.execute("PRAGMA secure_delete = \(previous)") }
            // Views are derived: a commit lost to a power cut is caught up again from the log.
            return try connection.withoutWaitingForTheDisk { try connection.transaction { try body(connection) } }
        }
    }

    /// Makes `generation` the one readers see and removes the projection's other generations.
    private static func activate(_ projection: String, generation: Int, _ connection: SQLiteConnection) throws {
        for sql in [
            "DELETE FROM view_documents WHERE projection = ?1 AND generation <> ?2",
            "DELETE FROM projections WHERE name = ?1 AND generation <> ?2",
            "UPDATE projections SET active = 1 WHERE name = ?1 AND generation = ?2",
        ] {
            let statement = try connection.statement(sql)
            try statement.bind(projection, at: 1)
            try statement.bind(Int64(generation), at: 2)
            try statement.run()
        }
    }
}
