// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 18 (issue 32): the single-table layout, a new store's default
    /// (docs/explanation/scale.md "Layouts"). Version 10 made every store's events table
    /// partitioned by position, which cannot hold a unique index on the event id alone: each
    /// append also wrote the id into `event_ids`, a third row for a one-event append. A store
    /// this step finds empty (no event, no archive, the position sequence never used) gets a
    /// plain events table instead, with the event id unique on it, unless the session asks for
    /// partitions: `evtool.layout` set to `partitioned`, or `evtool.partition_size` set (or the
    /// store was installed with a partition size other than the default). Then:
    ///
    /// - `events` is made anew with the same columns, defaults, CHECK, triggers, owner and
    ///   grants, and the unique constraints of version 1 (`events_event_id_key` on the id,
    ///   `events_stream_version_key` on stream and version);
    /// - `event_ids` becomes a view of the events table's ids and positions, so that what
    ///   reads it (and the roles granted it) work on either layout;
    /// - the four append functions are made again from their own text without the statements
    ///   that wrote `event_ids` (a duplicate id now fails on `events_event_id_key` of the
    ///   events table, with nothing written, as before); `CREATE OR REPLACE` keeps their
    ///   owner and grants;
    /// - `make_partitions` answers that no partition is ever needed, so an append calls it
    ///   once per session.
    ///
    /// A store with events (or asked to be partitioned) keeps its layout and its functions
    /// unchanged. Runs again over what it made: a store whose events table is not
    /// partitioned is left alone.
    static let version18 = PostgresMigration(version: 18, name: "single-table layout for a new store", template: #"""
DO $do$
DECLARE
    requested text := lower(nullif(current_setting('evtool.layout', true), ''));
    owner_oid oid;
    owner text;
    events_acl aclitem[];
    ids_acl aclitem[];
    triggers text[];
    grant_row record;
    fn record;
    old_def text;
    new_def text;
    rewritten integer := 0;
BEGIN
    IF requested IS NOT NULL AND requested NOT IN ('single', 'partitioned') THEN
        RAISE EXCEPTION 'evtool: the setting evtool.layout is ''%''; it must be ''single'' or ''partitioned''', requested
            USING ERRCODE = '22023';
    END IF;
    IF (SELECT c.relkind FROM pg_class c WHERE c.oid = '{{schema}}.events'::regclass) <> 'p' THEN
        RETURN;
    END IF;
    -- A store with a history keeps its layout (partitioned, as version 10 made it).
    IF EXISTS (SELECT FROM {{schema}}.events) OR EXISTS (SELECT FROM {{schema}}.event_ids)
       OR EXISTS (SELECT FROM {{schema}}.archives) OR (SELECT s.is_called FROM {{schema}}.position_seq s) THEN
        RETURN;
    END IF;
    IF requested = 'partitioned'
       OR (requested IS NULL AND (nullif(current_setting('evtool.partition_size', true), '') IS NOT NULL
                                  OR (SELECT p.size FROM {{schema}}.partitioning p) <> 1000000)) THEN
        RETURN;
    END IF;

    -- What the new table must keep of the old one: its owner, its grants (and event_ids'),
    -- and every trigger on it (not those version 10 put on each partition).
    SELECT c.relowner, c.relowner::regrole::text, c.relacl INTO STRICT owner_oid, owner, events_acl
    FROM pg_class c WHERE c.oid = '{{schema}}.events'::regclass;
    SELECT c.relacl INTO STRICT ids_acl FROM pg_class c WHERE c.oid = '{{schema}}.event_ids'::regclass;
    SELECT coalesce(array_agg(pg_get_triggerdef(t.oid) ORDER BY t.tgname), '{}') INTO triggers
    FROM pg_trigger t WHERE t.tgrelid = '{{schema}}.events'::regclass AND NOT t.tgisinternal;

    CREATE TABLE {{schema}}.events_single (LIKE {{schema}}.events INCLUDING DEFAULTS INCLUDING COMMENTS);
    DROP TABLE {{schema}}.event_ids;
    DROP TABLE {{schema}}.events;
    ALTER TABLE {{schema}}.events_single RENAME TO events;
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_pkey PRIMARY KEY (position);
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_event_id_key UNIQUE (event_id);
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_stream_version_key UNIQUE (stream_id, version);
    ALTER TABLE {{schema}}.events ADD CONSTRAINT events_position_check CHECK (position >= 1 AND version >= 1);
    COMMENT ON TABLE {{schema}}.events IS 'evtool event log: append-only; position is the global order, tx_id the appending transaction (see docs/ARCHITECTURE.md); one table (the single-table layout, docs/explanation/scale.md)';
    FOR i IN 1..cardinality(triggers) LOOP
        EXECUTE triggers[i];
    END LOOP;

    CREATE VIEW {{schema}}.event_ids AS SELECT e.event_id, e.position FROM {{schema}}.events e;
    COMMENT ON VIEW {{schema}}.event_ids IS 'evtool: every event id in the log with its position; in the single-table layout a view of the events table, whose events_event_id_key keeps ids unique';

    FOR grant_row IN
        SELECT 'events' AS relation, a.grantee, a.privilege_type AS privilege, a.is_grantable
        FROM aclexplode(events_acl) AS a
        UNION ALL
        SELECT 'event_ids', a.grantee, a.privilege_type, a.is_grantable FROM aclexplode(ids_acl) AS a
    LOOP
        CONTINUE WHEN grant_row.grantee = owner_oid;
        EXECUTE format('GRANT %s ON %s.%s TO %s%s', grant_row.privilege, '{{schema}}', grant_row.relation,
                       CASE WHEN grant_row.grantee = 0 THEN 'PUBLIC' ELSE grant_row.grantee::regrole::text END,
                       CASE WHEN grant_row.is_grantable THEN ' WITH GRANT OPTION' ELSE '' END);
    END LOOP;
    EXECUTE format('ALTER TABLE %s.events OWNER TO %s', '{{schema}}', owner);
    EXECUTE format('ALTER VIEW %s.event_ids OWNER TO %s', '{{schema}}', owner);

    -- No partition is ever needed: the append functions, which call this when their position
    -- reaches what it last returned, call it once per session.
    CREATE OR REPLACE FUNCTION {{schema}}.make_partitions(p_last bigint) RETURNS bigint
    LANGUAGE sql IMMUTABLE AS $fn$
        -- The single-table layout (schema 18): no partitions to make.
        SELECT 9223372036854775807::bigint
    $fn$;

    -- The append functions, without the statements that wrote event_ids: version 10's
    -- INSERTs (append, append_returning_hashes, append_copied) and the "id AS (INSERT …)"
    -- step of append_one's WITH statements. Each must have had them and must have none left.
    FOR fn IN
        SELECT p.oid FROM pg_proc p
        WHERE p.pronamespace = '{{schema}}'::regnamespace
          AND p.proname IN ('append', 'append_one', 'append_returning_hashes', 'append_copied')
    LOOP
        old_def := pg_get_functiondef(fn.oid);
        new_def := regexp_replace(old_def, '\),\n *id AS \(\n *INSERT INTO \S+\.event_ids [^\n]*\)\n', E')\n', 'g');
        new_def := regexp_replace(new_def, '\n *INSERT INTO \S+\.event_ids [^\n]*;', '', 'g');
        IF new_def = old_def OR strpos(new_def, 'event_ids') > 0 THEN
            RAISE EXCEPTION 'evtool: function % is not the text this upgrade expects', fn.oid::regprocedure USING ERRCODE = 'XX000';
        END IF;
        EXECUTE new_def;
        rewritten := rewritten + 1;
    END LOOP;
    IF rewritten <> 4 THEN
        RAISE EXCEPTION 'evtool: found % of the 4 append functions', rewritten USING ERRCODE = 'XX000';
    END IF;
END
$do$;
"""#)
}
