import EventLog
import Foundation

// MARK: - Audit trail: seals and erasure (docs/explanation/audit.md)

extension PostgresEventStore: AuditableEventStore {
    public func seals() throws -> [Seal] {
        try withRetry { connection in
            let result = try connection.query("""
                SELECT seal, position, events, streams, heads_sha256, previous_hash, hash, sealed_at
                FROM \(schema.quoted).seals ORDER BY seal
                """, types: [], binds: PostgresBinds())
            return try (0..<result.rowCount).map { row in
                Seal(number: try result.int64(row: row, column: 0), position: try result.int64(row: row, column: 1),
                     events: try result.int64(row: row, column: 2), streams: try result.int64(row: row, column: 3),
                     headsSHA256: result.string(row: row, column: 4), previousHash: result.string(row: row, column: 5),
                     hash: result.string(row: row, column: 6), sealedAt: result.string(row: row, column: 7))
            }
        }
    }

    public func addSeal(_ seal: Seal) throws {
        var binds = PostgresBinds()
        binds.append(int8: seal.number)
        binds.append(int8: seal.position)
        binds.append(int8: seal.events)
        binds.append(int8: seal.streams)
        binds.append(text: seal.headsSHA256)
        binds.append(text: seal.previousHash)
        binds.append(text: seal.hash)
        binds.append(text: seal.sealedAt)
        let inserted = try withRetry { connection in
            // Only as the next seal; the primary key settles a race between two sealers.
            try connection.query("""
                INSERT INTO \(schema.quoted).seals (seal, position, events, streams, heads_sha256, previous_hash, hash, sealed_at)
                SELECT $1, $2, $3, $4, $5, $6, $7, $8
                WHERE coalesce((SELECT max(seal) FROM \(schema.quoted).seals), 0) = $1 - 1
                ON CONFLICT (seal) DO NOTHING RETURNING seal
                """, types: [PostgresType.int8, PostgresType.int8, PostgresType.int8, PostgresType.int8,
                             PostgresType.text, PostgresType.text, PostgresType.text, PostgresType.text], binds: binds).rowCount
        }
        guard inserted == 1 else {
            throw EventStoreError.wrongExpectedVersion(stream: "$seals", expected: .exactly(seal.number - 1), actual: try seals().last?.number ?? 0)
        }
    }

    public func eventRowCensus(through position: Int64) throws -> EventRowCensus {
        var binds = PostgresBinds()
        binds.append(int8: position)
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT (SELECT count(*) FROM \(schema.quoted).events WHERE position <= $1), (SELECT min(position) FROM \(schema.quoted).events)
                """, types: [PostgresType.int8], binds: binds)
            return EventRowCensus(rows: try result.int64(row: 0, column: 0),
                                  lowestPosition: result.isNull(row: 0, column: 1) ? nil : try result.int64(row: 0, column: 1))
        }
    }

    public func erasedDigests(in positions: ClosedRange<Int64>) throws -> [Int64: ErasedDigests] {
        var binds = PostgresBinds()
        binds.append(int8: positions.lowerBound)
        binds.append(int8: positions.upperBound)
        return try withRetry { connection in
            let result = try connection.query("""
                SELECT position, event_id, data_sha256, metadata_sha256, erasure_event_id
                FROM \(schema.quoted).erasures WHERE position BETWEEN $1 AND $2
                """, types: [PostgresType.int8, PostgresType.int8], binds: binds)
            var found: [Int64: ErasedDigests] = [:]
            for row in 0..<result.rowCount {
                let position = try result.int64(row: row, column: 0)
                guard let data = [UInt8](hexadecimal: result.string(row: row, column: 2)),
                      let metadata = [UInt8](hexadecimal: result.string(row: row, column: 3)) else {
                    throw EventStoreError.corrupt("the erasure record at position \(position) is malformed")
                }
                found[position] = ErasedDigests(position: position, eventID: try result.uuid(row: row, column: 1), dataSHA256: data,
                                                metadataSHA256: metadata, erasureEventID: try result.uuid(row: row, column: 4))
            }
            return found
        }
    }

    /// Erases in one transaction: counts the user's events and finds the stream's version,
    /// appends the user's marker at the next version and the `UserErased` event (one call of
    /// the append function, which runs first in the transaction, before it has a transaction
    /// id, as it requires; it locks the user's stream until the commit), keeps the digests and
    /// replaces the payloads it covers, then commits. A failure at any step (a role without the
    /// privilege, a lost connection) leaves nothing: no `UserErased` event without the erasure
    /// it records, no erasure without its record. When the user's stream grew between the count
    /// and the append (the marker's exact version check fails), or the append function asks for
    /// a retry, the transaction is rolled back and the erasure is tried again from the count.
    public func erase(_ request: Erasure.Request) throws -> Erasure.Outcome {
        try AppendValidation.validateStreamID(request.stream)
        guard request.stream != Erasure.stream else { throw EventStoreError.invalidInput("the erasure log itself cannot be erased") }
        let lease: ConnectionPool.Lease
        do {
            lease = try pool.take()
        } catch let error as PostgresError {
            throw error.storeError(appending: false)
        }
        for _ in 1..<Self.appendAttempts {
            if let outcome = try eraseOnce(request, lease: lease) { return outcome }
        }
        guard let outcome = try eraseOnce(request, lease: lease, lastAttempt: true) else {
            throw EventStoreError.corrupt("the erasure of stream '\(request.stream)' kept losing races with appends to it")
        }
        return outcome
    }

    /// One try of ``erase(_:)`` on the lease's connection: the outcome, or nil (rolled back,
    /// nothing written, the lease still held) when the user's stream moved on meanwhile or the
    /// append function asked for a retry. On every error the lease is given back or dropped.
    private func eraseOnce(_ request: Erasure.Request, lease: ConnectionPool.Lease, lastAttempt: Bool = false) throws -> Erasure.Outcome? {
        let tombstone = String(decoding: Erasure.tombstone, as: UTF8.self)
        let notMarker = "NOT \(Erasure.markerCondition(typeParameter: "$5"))"
        let connection = lease.connection
        var committing = false
        do {
            _ = try connection.execute("BEGIN")
            var count = PostgresBinds()
            count.append(text: request.stream)
            count.append(text: tombstone)
            count.append(text: Erasure.markerType)
            let counted = try connection.query("""
                SELECT coalesce(max(position), 0)::bigint, coalesce(max(version), 0)::bigint,
                       count(*) FILTER (WHERE NOT (data::text = $2 AND metadata::text = $2)
                                          AND NOT \(Erasure.markerCondition(typeParameter: "$3")))
                FROM \(schema.quoted).events WHERE stream_id = $1
                """, types: [PostgresType.text, PostgresType.text, PostgresType.text], binds: count)
            var through = try counted.int64(row: 0, column: 0), last = try counted.int64(row: 0, column: 1)
            let pending = try counted.int64(row: 0, column: 2)
            if through == 0, let archived = try archivedThrough(stream: request.stream, connection) {
                // Every event of the stream is archived: its version is its head's.
                through = archived
                last = try version(of: request.stream, on: connection)
            }
            guard through > 0 else { throw EventStoreError.invalidInput("stream '\(request.stream)' has no events to erase") }
            // Nothing left to erase (an earlier erasure's marker is the stream's last event and
            // every event before it a tombstone): nothing is recorded. Of two erasures of one
            // user, the second's marker fails its version check, and its retry lands here.
            if pending == 0, let earlier = try earlierErasure(of: request.stream, connection) {
                try deleteViewDocuments(request, connection)
                committing = true
                _ = try connection.execute("COMMIT")
                pool.giveBack(lease)
                return Erasure.Outcome(erasedEvents: 0, throughPosition: through, eventID: earlier.id, position: earlier.position,
                                       streamVersion: last, recorded: false)
            }
            let record = ProposedEvent(type: Erasure.eventType,
                                       data: Erasure.eventData(request, erasedEvents: Int(pending), throughPosition: through))
            // The marker moves the stream's version on, so that an append decided on the stream
            // before the erasure fails its version check (Erasure+Marker.swift); its exact
            // expected version is also what makes the count above the stream's whole content.
            let marker = Erasure.marker(erasureEventID: record.id, throughVersion: last)
            let parts = [StreamAppend(stream: request.stream, expectedVersion: .exactly(last), events: [marker]),
                         StreamAppend(stream: Erasure.stream, expectedVersion: .any, events: [record])]
            let appended: PostgresResult
            do {
                appended = try connection.query(schema.appendSQL, types: PostgresSchema.appendTypes,
                                                binds: Self.appendBinds(parts, events: [marker, record]))
            } catch let error as PostgresError where error.sqlState == .appendRetry && !lastAttempt {
                try rollBack(connection)
                return nil
            }
            guard appended.rowCount == 1 else { throw EventStoreError.corrupt("the append function returned \(appended.rowCount) rows") }
            guard try appended.int32(row: 0, column: 0) == 0 else {
                // The user's stream moved on since the count (an append committed meanwhile).
                let actual = appended.isNull(row: 0, column: 2) ? 0 : try appended.int64(row: 0, column: 2)
                try rollBack(connection)
                if lastAttempt { throw EventStoreError.wrongExpectedVersion(stream: request.stream, expected: .exactly(last), actual: actual) }
                return nil
            }
            let position = try appended.int64(row: 0, column: 4) + 1
            let versions = try appended.int64Array(row: 0, column: 3)
            var erase = PostgresBinds()
            erase.append(text: request.stream)
            erase.append(int8: through)
            erase.append(text: record.id.lowercaseString)
            erase.append(text: tombstone)
            erase.append(text: Erasure.markerType)
            let types = [PostgresType.text, PostgresType.int8, PostgresType.text, PostgresType.text, PostgresType.text]
            let kept = try connection.query("""
                INSERT INTO \(schema.quoted).erasures (event_id, position, data_sha256, metadata_sha256, erased_at, erasure_event_id)
                SELECT event_id, position, encode(sha256(convert_to(data::text, 'UTF8')), 'hex'),
                       encode(sha256(convert_to(metadata::text, 'UTF8')), 'hex'), now(), $3::uuid
                FROM \(schema.quoted).events
                WHERE stream_id = $1 AND position <= $2 AND NOT (data::text = $4 AND metadata::text = $4) AND \(notMarker)
                ON CONFLICT (event_id) DO NOTHING
                RETURNING position
                """, types: types, binds: erase).rowCount
            var blank = PostgresBinds()
            blank.append(text: request.stream)
            blank.append(int8: through)
            blank.append(text: record.id.lowercaseString)
            blank.append(text: tombstone)
            _ = try connection.query("""
                UPDATE \(schema.quoted).events SET data = $4::json, metadata = $4::json
                WHERE position IN (SELECT position FROM \(schema.quoted).erasures WHERE erasure_event_id = $3::uuid)
                  AND stream_id = $1 AND position <= $2
                """, types: Array(types.prefix(4)), binds: blank)
            var stream = PostgresBinds()   // the stream's snapshots hold what was erased
            stream.append(text: request.stream)
            _ = try connection.query(deleteSnapshotsSQL, types: [PostgresType.text], binds: stream)
            try deleteViewDocuments(request, connection)
            if let state = request.archivedState { try replaceArchivedState(state, stream: request.stream, connection) }
            committing = true
            _ = try connection.execute("COMMIT")
            pool.giveBack(lease)
            // Followers (other servers' view memories) are woken as by any append, not at
            // their next poll: until they read the marker they may still answer with what was erased.
            notifier?.announce(position)
            return Erasure.Outcome(erasedEvents: kept, throughPosition: through, eventID: record.id, position: position,
                                   streamVersion: versions.first ?? last + 1)
        } catch let error as PostgresError {
            if error.kind == .connectionLost {
                if committing { throw EventStoreError.outcomeUnknown("the connection to \(connection.server) was lost while the erasure committed: \(error.message)") }
                throw error.storeError(appending: false)   // the server rolled the transaction back
            }
            // Roll back, and release the append's reservation lock in case the failure struck
            // inside it; if that fails, the connection is dropped, which does both.
            do {
                _ = try connection.execute("ROLLBACK")
                _ = try connection.execute("SELECT pg_advisory_unlock_all()")
                pool.giveBack(lease)
            } catch _ {}
            let failure = error.storeError(appending: false)
            if case .permissionDenied(let reason) = failure {
                throw EventStoreError.permissionDenied(
                    "forget needs INSERT on \(schema.name).erasures and UPDATE on \(schema.name).events, which the owner role has (evtool roles sql); nothing was erased or recorded (\(reason))")
            }
            throw failure
        } catch {
            // Not the server's error (nothing was committed): roll back; a connection that
            // cannot is dropped, which rolls back too.
            do {
                _ = try connection.execute("ROLLBACK")
                pool.giveBack(lease)
            } catch _ {}
            throw error
        }
    }

    /// The `UserErased` event named by the marker that is the stream's last event; nil when
    /// its last event is no marker.
    private func earlierErasure(of stream: String, _ connection: PostgresConnection) throws -> (id: UUID, position: Int64)? {
        var binds = PostgresBinds()
        binds.append(text: stream)
        binds.append(text: Erasure.markerType)
        binds.append(text: Erasure.stream)
        let found = try connection.query("""
            WITH newest AS (SELECT type, data, metadata FROM \(schema.quoted).events WHERE stream_id = $1 ORDER BY version DESC LIMIT 1),
                 marker AS (SELECT (data->>'erasure')::uuid AS erasure FROM newest WHERE \(Erasure.markerCondition(typeParameter: "$2")))
            SELECT u.position, u.event_id FROM marker JOIN \(schema.quoted).events u ON u.event_id = marker.erasure AND u.stream_id = $3
            """, types: [PostgresType.text, PostgresType.text, PostgresType.text], binds: binds)
        guard found.rowCount == 1 else { return nil }
        return (try found.uuid(row: 0, column: 1), try found.int64(row: 0, column: 0))
    }

    /// Deletes, in the erasure's transaction, every view document that holds the user's data
    /// (``Erasure/ViewDocuments``), in every generation.
    private func deleteViewDocuments(_ request: Erasure.Request, _ connection: PostgresConnection) throws {
        var keyed = PostgresBinds()
        keyed.append(textArray: request.views.keyedByUser)
        keyed.append(text: Identifier.exactKey(request.stream))
        _ = try connection.query("DELETE FROM \(schema.quoted).view_documents WHERE projection = ANY($1::text[]) AND key = $2",
                                 types: [PostgresType.textArray, PostgresType.text], binds: keyed)
        for (view, field) in request.views.namingUser.sorted(by: { $0.key < $1.key }) {
            var naming = PostgresBinds()
            naming.append(text: view)
            naming.append(text: field)
            naming.append(text: request.stream)
            _ = try connection.query("DELETE FROM \(schema.quoted).view_documents WHERE projection = $1 AND document->>$2 = $3",
                                     types: [PostgresType.text, PostgresType.text, PostgresType.text], binds: naming)
        }
    }

    /// Rolls back a try of the erasure that is to be repeated, releasing the append's
    /// reservation lock in case it is held; the connection stays leased.
    private func rollBack(_ connection: PostgresConnection) throws {
        _ = try connection.execute("ROLLBACK")
        _ = try connection.execute("SELECT pg_advisory_unlock_all()")
    }
}
