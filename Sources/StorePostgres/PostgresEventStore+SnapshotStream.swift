import EventLog
import Foundation

// A user's snapshot and the stream's tail after it in one statement (docs/reference/http.md, "Read"): the command runner's load of a user it does not hold yet, one round
// trip instead of two.

extension PostgresEventStore: SnapshotStreamReading {
    public func snapshotAndEvents(kind: String, slot: Int64, stream: String, limit: Int) throws -> SnapshotAndEvents {
        try AppendValidation.validateStreamID(stream)
        let projection = try SnapshotDocumentNames.projection(kind: kind, slot: slot)
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int4: Int32(slot))
        binds.append(text: stream)
        binds.append(int8: Int64(max(0, limit)))
        return try withRetry { connection in
            let result = try connection.query(snapshotAndEventsSQL,
                                              types: [PostgresType.text, PostgresType.int4, PostgresType.text, PostgresType.int8], binds: binds)
            // Row 0 is the snapshot's (the version the events start at, the document or NULL);
            // the events follow in version order.
            guard result.rowCount >= 1, try result.int32(row: 0, column: 9) == 0 else {
                throw EventStoreError.corrupt("the snapshot and stream read of '\(stream)' returned no snapshot row")
            }
            let from = try result.int64(row: 0, column: 2)
            let document = result.isNull(row: 0, column: 5) ? nil : result.data(row: 0, column: 5)
            var events: [RecordedEvent] = []
            events.reserveCapacity(result.rowCount - 1)
            for row in 1..<result.rowCount { events.append(try Self.event(result, row: row)) }
            return SnapshotAndEvents(document: document, from: from, events: events)
        }
    }

    /// Several streams' snapshots and tails in one statement (the command runner's load group:
    /// the users a server's threads need at the same time), in the order of `streams`.
    public func snapshotsAndEvents(kind: String, slot: Int64, streams: [String], limit: Int) throws -> [SnapshotAndEvents] {
        guard !streams.isEmpty else { return [] }
        for stream in streams { try AppendValidation.validateStreamID(stream) }
        let projection = try SnapshotDocumentNames.projection(kind: kind, slot: slot)
        var binds = PostgresBinds()
        binds.append(text: projection)
        binds.append(int4: Int32(slot))
        binds.append(textArray: streams)
        binds.append(int8: Int64(max(0, limit)))
        return try withRetry { connection in
            let result = try connection.query(snapshotsAndEventsSQL,
                                              types: [PostgresType.text, PostgresType.int4, PostgresType.textArray, PostgresType.int8], binds: binds)
            // For each stream in order (column 10, from 1): its snapshot's row, then its events.
            var reads: [SnapshotAndEvents] = []
            reads.reserveCapacity(streams.count)
            for row in 0..<result.rowCount {
                let index = Int(try result.int64(row: row, column: 10))
                if try result.int32(row: row, column: 9) == 0 {
                    guard index == reads.count + 1 else { break }
                    reads.append(SnapshotAndEvents(document: result.isNull(row: row, column: 5) ? nil : result.data(row: row, column: 5),
                                                   from: try result.int64(row: row, column: 2), events: []))
                } else {
                    guard index == reads.count else { break }
                    reads[index - 1].events.append(try Self.event(result, row: row))
                }
            }
            guard reads.count == streams.count, zip(reads, streams).allSatisfy({ read, stream in read.events.allSatisfy { $0.streamID == stream } }) else {
                throw EventStoreError.corrupt("the snapshots and streams read of \(streams.count) streams did not return each stream's snapshot row and then its events")
            }
            return reads
        }
    }

    /// ``snapshotAndEventsSQL`` for the streams of the array `$3`, each by primary-key lookups:
    /// the same rows for each stream, in the order of the array, with an eleventh column `n`,
    /// the stream's place in it (from 1).
    var snapshotsAndEventsSQL: String {
        let quoted = schema.quoted
        return """
            WITH start AS (
                SELECT w.n, w.stream_id, d.document,
                       coalesce(CASE WHEN d.document->>'version' ~ '^[1-9][0-9]{0,17}$' THEN (d.document->>'version')::bigint END, 1)::bigint AS v
                FROM unnest($3::text[]) WITH ORDINALITY AS w(stream_id, n)
                LEFT JOIN LATERAL (
                    SELECT document FROM \(quoted).view_documents WHERE projection = $1 AND generation = $2 AND key = w.stream_id LIMIT 1
                ) AS d ON true
            )
            SELECT * FROM (
                SELECT NULL::bigint AS position, NULL::text AS stream_id, s.v AS version, NULL::uuid AS event_id,
                       NULL::text AS type, s.document AS data, NULL::json AS metadata,
                       NULL::timestamptz AS recorded_at, NULL::text AS hash, 0 AS part, s.n
                FROM start s
                UNION ALL
                SELECT e.*, 1, s.n FROM start s CROSS JOIN LATERAL (
                    SELECT \(schema.columns) FROM \(quoted).events
                    WHERE stream_id = s.stream_id AND version >= s.v ORDER BY version LIMIT $4) AS e
            ) AS tail ORDER BY n, part, version
            """
    }

    /// The snapshot of projection `$1`, generation `$2`, key `$3` as row 0 (its `version` member
    /// in the `version` column, else 1; the document in `data`), then up to `$4` events of
    /// stream `$3` from that version, with the columns of ``PostgresSchema/readForwardsSQL`` and
    /// a tenth, `part` (0 for the snapshot's row, 1 for events).
    var snapshotAndEventsSQL: String {
        let quoted = schema.quoted
        return """
            WITH snapshot AS (
                SELECT document FROM \(quoted).view_documents WHERE projection = $1 AND generation = $2 AND key = $3
            ), start AS (
                SELECT coalesce((SELECT CASE WHEN document->>'version' ~ '^[1-9][0-9]{0,17}$' \
            THEN (document->>'version')::bigint END FROM snapshot), 1)::bigint AS v
            )
            SELECT * FROM (
                SELECT NULL::bigint AS position, NULL::text AS stream_id, (SELECT v FROM start) AS version, NULL::uuid AS event_id,
                       NULL::text AS type, (SELECT document FROM snapshot) AS data, NULL::json AS metadata,
                       NULL::timestamptz AS recorded_at, NULL::text AS hash, 0 AS part
                UNION ALL
                (SELECT \(schema.columns), 1 FROM \(quoted).events
                 WHERE stream_id = $3 AND version >= (SELECT v FROM start) ORDER BY version LIMIT $4)
            ) AS tail ORDER BY part, version
            """
    }
}
