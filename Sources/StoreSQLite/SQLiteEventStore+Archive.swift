import EventLog
import Foundation

// MARK: - Archives (schema 8, docs/explanation/audit.md "Archives")

extension SQLiteEventStore: ArchivingStore {
    public func archives() throws -> [ArchiveBoundary] {
        try withConnection { connection in
            let statement = try connection.statement("""
                SELECT archive, position, events, file_events, file_sha256, file_name, heads_sha256, tree_root, archived_at
                FROM archives ORDER BY archive
                """)
            defer { statement.reset() }
            var found: [ArchiveBoundary] = []
            while try statement.step() {
                found.append(ArchiveBoundary(number: statement.int64(0), position: statement.int64(1), events: statement.int64(2),
                                             fileEvents: statement.int64(3), fileSHA256: statement.string(4), fileName: statement.string(5),
                                             headsSHA256: statement.string(6), treeRoot: statement.string(7), archivedAt: statement.string(8)))
            }
            return found
        }
    }

    public func archivedHeads() throws -> StreamHeads {
        try withConnection { connection in
            let statement = try connection.statement("SELECT stream_id, version, hash FROM archived_heads")
            defer { statement.reset() }
            var heads = StreamHeads()
            while try statement.step() {
                heads[statement.string(0)] = try Self.archivedHead(statement, version: 1, hash: 2)
            }
            return heads
        }
    }

    public func archivedHead(of stream: String) throws -> StreamHeads.Head? {
        try withConnection { try Self.archivedHead(of: stream, $0) }
    }

    public func archivedState(of stream: String) throws -> (head: StreamHeads.Head, state: Data?)? {
        try withConnection { connection in
            let statement = try connection.statement("SELECT version, hash, state FROM archived_heads WHERE stream_id = ?1")
            defer { statement.reset() }
            try statement.bind(stream, at: 1)
            guard try statement.step() else { return nil }
            return (try Self.archivedHead(statement, version: 0, hash: 1), statement.isNull(2) ? nil : statement.data(2))
        }
    }

    static func archivedHead(of stream: String, _ connection: SQLiteConnection) throws -> StreamHeads.Head? {
        let statement = try connection.statement("SELECT version, hash FROM archived_heads WHERE stream_id = ?1")
        defer { statement.reset() }
        try statement.bind(stream, at: 1)
        guard try statement.step() else { return nil }
        return try archivedHead(statement, version: 0, hash: 1)
    }

    /// For a stream with archived events and none kept: the position before the latest
    /// boundary (every archived event is below it), which an erasure then covers; else nil.
    static func archivedThrough(stream: String, _ connection: SQLiteConnection) throws -> Int64? {
        guard try archivedHead(of: stream, connection) != nil else { return nil }
        return try connection.scalarInt("SELECT max(position) - 1 FROM archives")
    }

    /// Replaces the decision state kept beside a stream's archived head (inside an erasure's
    /// transaction); a stream with no archived head has none, and nothing changes.
    static func replaceArchivedState(_ state: Data, stream: String, _ connection: SQLiteConnection) throws {
        let update = try connection.statement("UPDATE archived_heads SET state = ?1 WHERE stream_id = ?2")
        defer { update.reset() }
        try update.bindText(state, at: 1)
        try update.bind(stream, at: 2)
        try update.run()
    }

    private static func archivedHead(_ statement: SQLiteStatement, version: Int32, hash: Int32) throws -> StreamHeads.Head {
        guard let bytes = [UInt8](hexadecimal: statement.string(hash)), bytes.count == 32 else {
            throw EventStoreError.corrupt("an archived stream head has a malformed hash")
        }
        return StreamHeads.Head(version: statement.int64(version), chainHash: bytes)
    }

    @discardableResult
    public func recordArchive(_ boundary: ArchiveBoundary, heads: StreamHeads, states: [StreamKey: Data]) throws -> Int64 {
        try withConnection { connection in
            try connection.transaction {
                let last = try connection.scalarInt("SELECT max(archive) FROM archives") ?? 0
                guard last == boundary.number - 1 else {
                    throw EventStoreError.wrongExpectedVersion(stream: "$archives", expected: .exactly(boundary.number - 1), actual: last)
                }
                let below = try connection.scalarInt("SELECT count(*) FROM events WHERE position < ?1") { try $0.bind(boundary.position, at: 1) } ?? 0
                guard below == boundary.fileEvents else {
                    throw EventStoreError.corrupt("the events table holds \(below) rows below position \(boundary.position), and the archive holds \(boundary.fileEvents): nothing was removed")
                }
                let insert = try connection.statement("""
                    INSERT INTO archives (archive, position, events, file_events, file_sha256, file_name, heads_sha256, tree_root, archived_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)
                    """)
                try insert.bind(boundary.number, at: 1)
                try insert.bind(boundary.position, at: 2)
                try insert.bind(boundary.events, at: 3)
                try insert.bind(boundary.fileEvents, at: 4)
                try insert.bind(boundary.fileSHA256, at: 5)
                try insert.bind(boundary.fileName, at: 6)
                try insert.bind(boundary.headsSHA256, at: 7)
                try insert.bind(boundary.treeRoot, at: 8)
                try insert.bind(boundary.archivedAt, at: 9)
                try insert.run()
                try connection.execute("DELETE FROM archived_heads")
                let head = try connection.statement("INSERT INTO archived_heads (stream_id, version, hash, state) VALUES (?1, ?2, ?3, ?4)")
                for (stream, value) in heads.sorted {
                    try head.bind(stream, at: 1)
                    try head.bind(value.version, at: 2)
                    try head.bind(value.hash.hexString, at: 3)
                    if let state = states[StreamKey(stream)] { try head.bindText(state, at: 4) } else { try head.bindNull(at: 4) }
                    try head.run()
                }
                let delete = try connection.statement("DELETE FROM events WHERE position < ?1")
                try delete.bind(boundary.position, at: 1)
                try delete.run()
                return below
            }
        }
    }
}
