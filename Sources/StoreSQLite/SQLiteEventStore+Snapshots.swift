import EventLog
import Foundation

extension SQLiteEventStore: SnapshotDocuments {
    public func snapshotDocument(kind: String, slot: Int64, stream: String) throws -> Data? {
        let projection = try SnapshotDocumentNames.projection(kind: kind, slot: slot)
        return try withReadConnection { connection in
            let statement = try connection.statement(
                "SELECT document FROM view_documents WHERE projection = ?1 AND generation = ?2 AND key = ?3")
            defer { statement.reset() }
            try statement.bind(projection, at: 1)
            try statement.bind(slot, at: 2)
            try statement.bind(stream, at: 3)
            return try statement.step() ? statement.data(0) : nil
        }
    }

    public func saveSnapshotDocuments(_ documents: [SnapshotDocument]) throws {
        let projections = try documents.map { try SnapshotDocumentNames.projection(kind: $0.kind, slot: $0.slot) }
        guard !documents.isEmpty else { return }
        try withConnection { connection in
            try connection.transaction {
                let upsert = try connection.statement("""
                    INSERT INTO view_documents (projection, generation, key, document) VALUES (?1, ?2, ?3, ?4)
                    ON CONFLICT (projection, generation, key) DO UPDATE SET document = excluded.document
                    """)
                defer { upsert.reset() }
                for (document, projection) in zip(documents, projections) {
                    try upsert.bind(projection, at: 1)
                    try upsert.bind(document.slot, at: 2)
                    try upsert.bind(document.stream, at: 3)
                    try upsert.bindText(document.document, at: 4)
                    try upsert.run()
                }
            }
        }
    }

    /// Deletes every snapshot of a stream (inside an erasure's transaction).
    static func deleteSnapshots(stream: String, _ connection: SQLiteConnection) throws {
        let delete = try connection.statement(
            "DELETE FROM view_documents WHERE projection >= 'snapshot:' AND projection < 'snapshot;' AND key = ?1")
        defer { delete.reset() }
        try delete.bind(stream, at: 1)
        try delete.run()
    }
}
