// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
    /// Version 9: archives (`evtool archive`, docs/explanation/audit.md "Archives"): each archive's record,
    /// each stream's head (and decision state) as of the latest boundary, and the one DELETE
    /// allowed on events: rows below a recorded boundary, in the archive's own transaction.
    static let version9 = PostgresMigration(version: 9, name: "archives", template: #"""
CREATE TABLE IF NOT EXISTS {{schema}}.archives (
    archive bigint PRIMARY KEY CHECK (archive >= 1),
    position bigint NOT NULL,
    events bigint NOT NULL,
    file_events bigint NOT NULL,
    file_sha256 text NOT NULL,
    file_name text NOT NULL,
    heads_sha256 text NOT NULL,
    tree_root text NOT NULL,
    archived_at text NOT NULL
);
COMMENT ON TABLE {{schema}}.archives IS 'evtool audit: every archive taken (evtool archive): the events below position are in the file with that SHA-256';
CREATE TABLE IF NOT EXISTS {{schema}}.archived_heads (
    stream_id text PRIMARY KEY,
    version bigint NOT NULL,
    hash text NOT NULL,
    state text
);
COMMENT ON TABLE {{schema}}.archived_heads IS 'evtool audit: each stream''s head (and the runner''s decision state) as of the latest archive boundary';

-- The changes allowed on an event: an erasure (data and metadata become the tombstone,
-- nothing else changes, and the erasures table holds the digests), and the DELETE of a row
-- below a recorded archive boundary (in the archive's transaction, which records it first).
CREATE OR REPLACE FUNCTION {{schema}}.refuse_change() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
    IF TG_OP = 'UPDATE' AND TG_TABLE_NAME = 'events'
       AND NEW.data::text = '{"erased":true}' AND NEW.metadata::text = '{"erased":true}'
       AND (NEW.position, NEW.stream_id, NEW.version, NEW.event_id, NEW.type, NEW.recorded_at, NEW.tx_id, NEW.hash)
           IS NOT DISTINCT FROM (OLD.position, OLD.stream_id, OLD.version, OLD.event_id, OLD.type, OLD.recorded_at, OLD.tx_id, OLD.hash)
       AND EXISTS (SELECT 1 FROM {{schema}}.erasures x WHERE x.event_id = OLD.event_id AND x.position = OLD.position) THEN
        RETURN NEW;
    END IF;
    IF TG_OP = 'DELETE' AND TG_TABLE_NAME = 'events'
       AND OLD.position < (SELECT max(a.position) FROM {{schema}}.archives a) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION 'evtool % are append-only (% refused)', TG_TABLE_NAME, TG_OP USING ERRCODE = '55000';
END
$fn$;
CREATE OR REPLACE TRIGGER archives_append_only BEFORE UPDATE OR DELETE ON {{schema}}.archives
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER archives_no_truncate BEFORE TRUNCATE ON {{schema}}.archives
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Owner-only: written by the owner (evtool archive), read by every role that reads the seals.
DO $do$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT quote_ident(r.rolname)
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.seals'::regclass AND a.privilege_type = 'SELECT' AND r.oid <> c.relowner
    LOOP
        EXECUTE format('GRANT SELECT ON %s, %s TO %s', '{{schema}}.archives', '{{schema}}.archived_heads', grantee);
    END LOOP;
END
$do$;
"""#)
}
