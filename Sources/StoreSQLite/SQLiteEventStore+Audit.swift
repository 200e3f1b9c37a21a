import EventLog
import Foundation

// MARK: - Audit trail: seals and erasure (docs/explanation/audit.md)

extension SQLiteEventStore: AuditableEventStore {
    public func seals() throws -> [Seal] {
        try withConnection { connection in
            let statement = try connection.statement("""
                SELECT seal, position, events, streams, heads_sha256, previous_hash, hash, sealed_at FROM seals ORDER BY seal
                """)
            defer { statement.reset() }
            var seals: [Seal] = []
            while try statement.step() {
                seals.append(Seal(number: statement.int64(0), position: statement.int64(1), events: statement.int64(2),
                                  streams: statement.int64(3), headsSHA256: statement.string(4), previousHash: statement.string(5),
                                  hash: statement.string(6), sealedAt: statement.string(7)))
            }
            return seals
        }
    }

    public func addSeal(_ seal: Seal) throws {
        try withConnection { connection in
            try connection.transaction {
                let last = try connection.scalarInt("SELECT max(seal) FROM seals") ?? 0
                guard last == seal.number - 1 else {
                    throw EventStoreError.wrongExpectedVersion(stream: "$seals", expected: .exactly(seal.number - 1), actual: last)
                }
                let insert = try connection.statement("""
                    INSERT INTO seals (seal, position, events, streams, heads_sha256, previous_hash, hash, sealed_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                    """)
                try insert.bind(seal.number, at: 1)
                try insert.bind(seal.position, at: 2)
                try insert.bind(seal.events, at: 3)
                try insert.bind(seal.streams, at: 4)
                try insert.bind(seal.headsSHA256, at: 5)
                try insert.bind(seal.previousHash, at: 6)
                try insert.bind(seal.hash, at: 7)
                try insert.bind(seal.sealedAt, at: 8)
                try insert.run()
            }
        }
    }

    public func eventRowCensus(through position: Int64) throws -> EventRowCensus {
        try withConnection { connection in
            let statement = try connection.statement("SELECT (SELECT count(*) FROM events WHERE position <= ?1), (SELECT min(position) FROM events)")
            defer { statement.reset() }
            try statement.bind(position, at: 1)
            guard try statement.step() else { throw EventStoreError.corrupt("the count of the events table returned no row") }
            return EventRowCensus(rows: statement.int64(0), lowestPosition: statement.isNull(1) ? nil : statement.int64(1))
        }
    }

    public func erasedDigests(in positions: ClosedRange<Int64>) throws -> [Int64: ErasedDigests] {
        try withConnection { connection in
            let statement = try connection.statement("""
                SELECT position, event_id, data_sha256, metadata_sha256, erasure_event_id FROM erasures
                WHERE position BETWEEN ?1 AND ?2
                """)
            defer { statement.reset() }
            try statement.bind(positions.lowerBound, at: 1)
            try statement.bind(positions.upperBound, at: 2)
            var found: [Int64: ErasedDigests] = [:]
            while try statement.step() {
                guard let id = UUID(uuidString: statement.string(1)), let erasure = UUID(uuidString: statement.string(4)),
                      let data = [UInt8](hexadecimal: statement.string(2)), let metadata = [UInt8](hexadecimal: statement.string(3)) else {
                    throw EventStoreError.corrupt("the erasure record at position \(statement.int64(0)) is malformed")
                }
                found[statement.int64(0)] = ErasedDigests(position: statement.int64(0), eventID: id, dataSHA256: data,
                                                          metadataSHA256: metadata, erasureEventID: erasure)
            }
            return found
        }
    }

    public func erase(_ request: Erasure.Request) throws -> Erasure.Outcome {
        try AppendValidation.validateStreamID(request.stream)
        guard request.stream != Erasure.stream else { throw EventStoreError.invalidInput("the erasure log itself cannot be erased") }
        return try withConnection { connection in
            try connection.transaction {
                // The user's events, read under the write lock: nothing can be appended meanwhile.
                let select = try connection.statement(
                    "SELECT position, event_id, data, metadata, version, type FROM events WHERE stream_id = ?1 ORDER BY version")
                try select.bind(request.stream, at: 1)
                var rows: [(position: Int64, id: String, data: Data, metadata: Data, version: Int64, type: String)] = []
                while try select.step() {
                    rows.append((select.int64(0), select.string(1), select.data(2), select.data(3), select.int64(4), select.string(5)))
                }
                select.reset()
                // A stream whose events are all archived erases what its archived state holds;
                // its version is its archived head's.
                let archived = rows.isEmpty ? try Self.archivedHead(of: request.stream, connection) : nil
                guard let through = try rows.map(\.position).max() ?? Self.archivedThrough(stream: request.stream, connection),
                      let last = rows.last?.version ?? archived?.version else {
                    throw EventStoreError.invalidInput("stream '\(request.stream)' has no events to erase")
                }
                // Tombstones are erased already; an earlier erasure's marker holds nothing to erase.
                let pending = rows.filter {
                    !Erasure.isTombstone(data: $0.data, metadata: $0.metadata) && !Erasure.isMarker(type: $0.type, data: $0.data, metadata: $0.metadata)
                }
                // Nothing left to erase (an earlier erasure's marker is the stream's last event and
                // every event before it a tombstone): nothing is recorded. Read under the write
                // lock, so of two erasures of one user the second finds the first's marker.
                if pending.isEmpty, let newest = rows.last, Erasure.isMarker(type: newest.type, data: newest.data, metadata: newest.metadata),
                   let earlier = Erasure.markerErasureID(newest.data) {
                    let find = try connection.statement("SELECT position FROM events WHERE event_id = ?1")
                    defer { find.reset() }
                    try find.bind(earlier.lowercaseString, at: 1)
                    guard try find.step() else { throw EventStoreError.corrupt("the erasure marker of stream '\(request.stream)' names no UserErased event") }
                    try Self.deleteViewDocuments(request, connection)
                    return Erasure.Outcome(erasedEvents: 0, throughPosition: through, eventID: earlier, position: find.int64(0),
                                           streamVersion: last, recorded: false)
                }
                let record = ProposedEvent(type: Erasure.eventType,
                                           data: Erasure.eventData(request, erasedEvents: pending.count, throughPosition: through))
                let now = Timestamp.format(Date())
                // The marker moves the stream's version on, so that an append decided on the
                // stream before the erasure fails its version check (Erasure+Marker.swift).
                let marked = try Self.insert(StreamAppend(stream: request.stream, expectedVersion: .exactly(last),
                                                          events: [Erasure.marker(erasureEventID: record.id, throughVersion: last)]),
                                             now: now, hasher: EventChain.Hasher(), connection)
                let appended = try Self.insert(StreamAppend(stream: Erasure.stream, expectedVersion: .any, events: [record]),
                                               now: now, hasher: EventChain.Hasher(), connection)
                let keep = try connection.statement("""
                    INSERT INTO erasures (event_id, position, data_sha256, metadata_sha256, erased_at, erasure_event_id)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    """)
                let blank = try connection.statement("UPDATE events SET data = ?1, metadata = ?1 WHERE position = ?2")
                for row in pending {
                    try keep.bind(row.id, at: 1)
                    try keep.bind(row.position, at: 2)
                    try keep.bind(SHA256Hasher.digest(row.data).hexString, at: 3)
                    try keep.bind(SHA256Hasher.digest(row.metadata).hexString, at: 4)
                    try keep.bind(now, at: 5)
                    try keep.bind(record.id.lowercaseString, at: 6)
                    try keep.run()
                    try blank.bindText(Erasure.tombstone, at: 1)
                    try blank.bind(row.position, at: 2)
                    try blank.run()
                }
                try Self.deleteSnapshots(stream: request.stream, connection)   // they hold what was erased
                try Self.deleteViewDocuments(request, connection)
                if let state = request.archivedState { try Self.replaceArchivedState(state, stream: request.stream, connection) }
                return Erasure.Outcome(erasedEvents: pending.count, throughPosition: through, eventID: record.id,
                                       position: appended.positions.lowerBound, streamVersion: marked.streamVersion)
            }
        }
    }
}

extension SQLiteEventStore {
    /// Deletes, in the erasure's transaction, every view document that holds the user's data
    /// (``Erasure/ViewDocuments``), in every generation.
    static func deleteViewDocuments(_ request: Erasure.Request, _ connection: SQLiteConnection) throws {
        let keyed = try connection.statement("DELETE FROM view_documents WHERE projection = ?1 AND key = ?2")
        for view in request.views.keyedByUser {
            try keyed.bind(view, at: 1)
            try keyed.bind(Identifier.exactKey(request.stream), at: 2)
            try keyed.run()
        }
        let naming = try connection.statement("""
            DELETE FROM view_documents WHERE projection = ?1
              AND (CASE WHEN json_valid(document) THEN json_extract(document, ?2) END) = ?3
            """)
        for (view, field) in request.views.namingUser.sorted(by: { $0.key < $1.key }) {
            try naming.bind(view, at: 1)
            try naming.bind("$.\"" + field + "\"", at: 2)
            try naming.bind(request.stream, at: 3)
            try naming.run()
        }
    }

    /// Rewrites the file without free pages (`VACUUM`), so that bytes of erased payloads and
    /// dropped views are gone from it, then checkpoints and empties the WAL.
    /// - Returns: whether the WAL could be emptied (it cannot while other connections read).
    /// Cost: a rewrite of the whole file.
    public func compact() throws -> Bool {
        try withConnection { connection in
            try connection.execute("VACUUM")
            guard path != ":memory:" else { return true }
            func truncate() throws -> Bool {
                let statement = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)")
                defer { statement.reset() }
                guard try statement.step() else { return false }
                return statement.int64(0) == 0
            }
            // Not beside the store's own checkpointer, whose checkpoint would make this one give up.
            return try checkpointer.map { try $0.withoutCheckpoints(truncate) } ?? truncate()
        }
    }
}

extension SQLiteEventStore: ChainRowReading {
    public func forEachChainRow(after position: Int64, limit: Int, _ body: (ChainRow) throws -> Bool) throws -> (accepted: Int, declined: Int64?) {
        try withConnection { connection in
            let statement = try connection.statement(
                "SELECT position, stream_id, version, event_id, type, data, metadata, recorded_at, hash FROM events WHERE position > ?1 ORDER BY position LIMIT ?2")
            defer { statement.reset() }
            try statement.bind(position, at: 1)
            try statement.bind(Int64(limit), at: 2)
            var accepted = 0
            while try statement.step() {
                func bytes(_ column: Int32) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(statement.textBytes(column)) }
                let row = ChainRow(position: statement.int64(0), version: statement.int64(2), stream: bytes(1), idText: bytes(3),
                                   type: bytes(4), recordedAtText: bytes(7), data: bytes(5), metadata: bytes(6), hashText: bytes(8))
                guard try body(row) else { return (accepted, row.position) }
                accepted += 1
            }
            return (accepted, nil)
        }
    }
}

extension SQLiteEventStore: StorageChecking {
    public var storageCheckName: String { "SQLite's PRAGMA quick_check" }

    /// `PRAGMA quick_check(limit)`: the file's pages, b-trees and records (not the indexes'
    /// agreement with the tables, which `integrity_check` adds at several times the cost).
    public func storageProblems(limit: Int) throws -> [String] {
        try withConnection { connection in
            let statement = try connection.statement("PRAGMA quick_check(\(max(1, limit)))")
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() {
                // One row can hold several lines; the database's name is no problem.
                lines += statement.string(0).split(separator: "\n").map(String.init).filter { !$0.hasPrefix("*** in database") }
            }
            return lines == ["ok"] ? [] : lines
        }
    }
}
