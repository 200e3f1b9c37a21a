import EventLog
import Foundation

extension PostgresEventStore: SnapshotDocuments {
    public func snapshotDocument(kind: String, slot: Int64, stream: String) throws -> Data? {
        var binds = PostgresBinds()
        binds.append(text: try SnapshotDocumentNames.projection(kind: kind, slot: slot))
        binds.append(int4: Int32(slot))
        binds.append(text: stream)
        return try withSnapshots { connection in
            let result = try connection.query("""
                SELECT document FROM \(schema.quoted).view_documents WHERE projection = $1 AND generation = $2 AND key = $3
                """, types: [PostgresType.text, PostgresType.int4, PostgresType.text], binds: binds)
            return result.rowCount == 0 ? nil : result.data(row: 0, column: 0)
        }
    }

    public func saveSnapshotDocuments(_ documents: [SnapshotDocument]) throws {
        guard !documents.isEmpty else { return }
        var binds = PostgresBinds()
        binds.append(textArray: try documents.map { try SnapshotDocumentNames.projection(kind: $0.kind, slot: $0.slot) })
        binds.append(int4Array: documents.map { Int32($0.slot) })
        binds.append(textArray: documents.map(\.stream))
        binds.append(textArray: documents.map { String(decoding: $0.document, as: UTF8.self) })
        try withSnapshots { connection in
            // One statement: all of them or none. A slot given twice keeps the last.
            _ = try connection.query("""
                INSERT INTO \(schema.quoted).view_documents (projection, generation, key, document)
                SELECT DISTINCT ON (p, g, k) p, g, k, d::json
                FROM unnest($1::text[], $2::int4[], $3::text[], $4::text[]) WITH ORDINALITY AS u(p, g, k, d, n)
                ORDER BY p, g, k, n DESC
                ON CONFLICT (projection, generation, key) DO UPDATE SET document = excluded.document
                """, types: [PostgresType.textArray, PostgresType.int4Array, PostgresType.textArray, PostgresType.textArray], binds: binds)
        }
    }

    /// The statement that deletes every snapshot of stream `$1` (inside an erasure's transaction).
    var deleteSnapshotsSQL: String {
        #"DELETE FROM \#(schema.quoted).view_documents WHERE projection COLLATE "C" >= 'snapshot:' AND projection COLLATE "C" < 'snapshot;' AND key = $1"#
    }

    private func withSnapshots<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        do {
            return try pool.withConnection(body)
        } catch let error as PostgresError {
            if error.kind == .connectionLost { pool.drain() }
            throw error.storeError(appending: false)
        }
    }
}
