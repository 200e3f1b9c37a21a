import EventLog
import Foundation

// Users' snapshots and their streams' tails after them in one statement (docs/reference/http.md,
// "Read" and "Group commit"): the command runner's load of the users it does not hold yet, one
// round trip for all its threads wait for instead of two each.

extension PostgresEventStore: SnapshotStreamReading {
    /// One stream's snapshot and tail: the statement of ``snapshotsAndEvents(kind:slot:streams:limit:)``
    /// for it alone.
    public func snapshotAndEvents(kind: String, slot: Int64, stream: String, limit: Int) throws -> SnapshotAndEvents {
        try snapshotsAndEvents(kind: kind, slot: slot, streams: [stream], limit: limit)[0]
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

    /// For each stream of the array `$3`, in its order: the snapshot of projection `$1`,
    /// generation `$2`, key the stream (by primary-key lookups) as one row (its `version` member
    /// in the `version` column, else 1; the document in `data`), then up to `$4` events of the
    /// stream from that version, with the columns of ``PostgresSchema/readForwardsSQL``, a tenth,
    /// `part` (0 for the snapshot's row, 1 for events), and an eleventh, `n`, the stream's
    /// place in the array (from 1).
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
}
