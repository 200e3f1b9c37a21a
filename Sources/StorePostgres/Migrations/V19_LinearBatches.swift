// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 19: a batched append takes time linear in its batch. The statement that
    /// inserts a batch's events read each event's type, payload, metadata, hash and stream by
    /// subscript (`p_data[k]` for k in 1…n) from arrays of variable-length values, and
    /// PostgreSQL finds such an element by walking the array from its start: a batch of n
    /// events cost time in n² (10,000 events of 997 streams: 1.2 s, 0.35 s now). The statement
    /// now walks the arrays once, in step (`unnest … WITH ORDINALITY`), and finds each event's
    /// stream by joining the streams' array walked the same way, inserting in position order
    /// as before. The three batched append functions (`append`, `append_returning_hashes`,
    /// `append_copied`) are made again from their own text with only that statement changed,
    /// on either layout (the partitioned layout's `event_ids` insert reads fixed-size ids, one
    /// subscript each, and stays); `CREATE OR REPLACE` keeps their owner and grants. Runs
    /// again over what it made.
    static let version19 = PostgresMigration(version: 19, name: "batched appends linear in the batch", template: #"""
DO $do$
DECLARE
    one_old constant text := $t$
        SELECT first_position + k - 1, p_streams[1], bases[1] + k, p_ids[k], p_types[k], p_data[k], p_metadata[k],
               coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;$t$;
    one_new constant text := $t$
        SELECT first_position + e.k - 1, p_streams[1], bases[1] + e.k, e.id, e.type, e.data, e.metadata,
               coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k);$t$;
    many_old constant text := $t$
        SELECT first_position + k - 1, p_streams[event_part[k]], bases[event_part[k]] + k - offsets[event_part[k]],
               p_ids[k], p_types[k], p_data[k], p_metadata[k], coalesce(p_recorded_at[k], now()), xid, hashes[k]
        FROM generate_series(1, n) AS k;$t$;
    many_new constant text := $t$
        SELECT first_position + e.k - 1, s.stream_id, bases[s.part] + e.k - offsets[s.part],
               e.id, e.type, e.data, e.metadata, coalesce(e.recorded_at, now()), xid, e.hash
        FROM unnest(p_ids, p_types, p_data, p_metadata, p_recorded_at, hashes)
             WITH ORDINALITY AS e(id, type, data, metadata, recorded_at, hash, k)
        JOIN unnest(p_streams) WITH ORDINALITY AS s(stream_id, part) ON s.part = event_part[e.k]
        ORDER BY e.k;$t$;
    fn record;
    old_def text;
    rewritten integer := 0;
BEGIN
    FOR fn IN
        SELECT p.oid FROM pg_proc p
        WHERE p.pronamespace = '{{schema}}'::regnamespace
          AND p.proname IN ('append', 'append_returning_hashes', 'append_copied')
    LOOP
        old_def := pg_get_functiondef(fn.oid);
        rewritten := rewritten + 1;
        CONTINUE WHEN strpos(old_def, one_new) > 0 AND strpos(old_def, many_new) > 0;
        IF strpos(old_def, one_old) = 0 OR strpos(old_def, many_old) = 0 THEN
            RAISE EXCEPTION 'evtool: function % is not the text this upgrade expects', fn.oid::regprocedure USING ERRCODE = 'XX000';
        END IF;
        EXECUTE replace(replace(old_def, one_old, one_new), many_old, many_new);
    END LOOP;
    IF rewritten <> 3 THEN
        RAISE EXCEPTION 'evtool: found % of the 3 batched append functions', rewritten USING ERRCODE = 'XX000';
    END IF;
END
$do$;
"""#)
}
