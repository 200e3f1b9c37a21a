// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
    /// Version 6: the log's Merkle tree, kept (docs/explanation/audit.md): owner-only tables of its leaves, of every perfect subtree's root and of the checkpoints `seal --key` signed, and `merkle_extend`, the follower that extends it from the events (`SECURITY DEFINER`, so the app role can extend it but no role but the owner can write a node).
    static let version6 = PostgresMigration(version: 6, name: "kept Merkle tree", template: #"""
-- Runs again over what it made (IF NOT EXISTS, OR REPLACE), as a re-run upgrade may.
-- Leaf i is the i-th event in position order: SHA-256(0x00 || its chain hash's 32 bytes).
CREATE TABLE IF NOT EXISTS {{schema}}.merkle_leaves (
    leaf bigint PRIMARY KEY CHECK (leaf >= 0),
    position bigint NOT NULL UNIQUE,
    hash bytea NOT NULL CHECK (length(hash) = 32)
);
COMMENT ON TABLE {{schema}}.merkle_leaves IS 'evtool audit: the Merkle tree''s leaves, derived from the log by merkle_extend; verify recomputes them';
-- The root of the subtree of leaves [idx << level, (idx + 1) << level): SHA-256(0x01 || left || right).
CREATE TABLE IF NOT EXISTS {{schema}}.merkle_nodes (
    level integer NOT NULL CHECK (level >= 1),
    idx bigint NOT NULL CHECK (idx >= 0),
    hash bytea NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (level, idx)
);
COMMENT ON TABLE {{schema}}.merkle_nodes IS 'evtool audit: the roots of the Merkle tree''s perfect subtrees, derived from the log by merkle_extend; verify recomputes them';

-- Every checkpoint 'evtool seal --key' made, as printed; 'evtool verify' checks each.
CREATE TABLE IF NOT EXISTS {{schema}}.signed_checkpoints (
    checkpoint bigint PRIMARY KEY CHECK (checkpoint >= 1),
    seal bigint NOT NULL,
    size bigint NOT NULL CHECK (size >= 0),
    note text NOT NULL,
    recorded_at text NOT NULL
);
COMMENT ON TABLE {{schema}}.signed_checkpoints IS 'evtool audit: the checkpoints seal --key signed, as printed';

-- Append-only, like the seals (the owner writes them; nobody changes them).
CREATE OR REPLACE TRIGGER merkle_leaves_append_only BEFORE UPDATE OR DELETE ON {{schema}}.merkle_leaves
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_leaves_no_truncate BEFORE TRUNCATE ON {{schema}}.merkle_leaves
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_nodes_append_only BEFORE UPDATE OR DELETE ON {{schema}}.merkle_nodes
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER merkle_nodes_no_truncate BEFORE TRUNCATE ON {{schema}}.merkle_nodes
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER signed_checkpoints_append_only BEFORE UPDATE OR DELETE ON {{schema}}.signed_checkpoints
    FOR EACH ROW EXECUTE FUNCTION {{schema}}.refuse_change();
CREATE OR REPLACE TRIGGER signed_checkpoints_no_truncate BEFORE TRUNCATE ON {{schema}}.signed_checkpoints
    FOR EACH STATEMENT EXECUTE FUNCTION {{schema}}.refuse_change();

-- Extends the tree by at most p_limit events after its last leaf, in position order, and only
-- events no running transaction can still precede (as readAll hands them out). One extender at
-- a time (a table lock only the owner can take; readers are not blocked). Returns the tree's
-- size, the position of its last leaf, how many leaves this call added, and whether committed
-- events were held back behind a transaction still running (the caller may call again soon).
CREATE OR REPLACE FUNCTION {{schema}}.merkle_extend(p_limit integer, OUT tree_size bigint, OUT last_position bigint, OUT added integer,
                                         OUT held_back boolean)
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, pg_temp SET lock_timeout = '2s' AS $fn$
DECLARE
    old_size bigint;
    lvl integer;
    made bigint;
    malformed bigint;
BEGIN
    LOCK TABLE {{schema}}.merkle_leaves IN EXCLUSIVE MODE;
    SELECT l.leaf + 1, l.position INTO old_size, last_position FROM {{schema}}.merkle_leaves l ORDER BY l.leaf DESC LIMIT 1;
    IF NOT FOUND THEN
        old_size := 0;
        last_position := 0;
    END IF;
    -- The events after the last leaf that are safe to take: positions and transaction ids rise
    -- together, so they are a prefix; the rows after it wait for a transaction still running.
    SELECT coalesce(count(*) FILTER (WHERE c.prefix), 0), coalesce(bool_or(NOT c.prefix), false),
           coalesce(count(*) FILTER (WHERE c.prefix AND c.hash !~ '^[0-9a-f]{64}$'), 0)
      INTO added, held_back, malformed
      FROM (SELECT w.hash, bool_and(w.safe) OVER (ORDER BY w.position) AS prefix
              FROM (SELECT e.position, e.hash, e.tx_id < pg_snapshot_xmin(pg_current_snapshot()) AS safe
                      FROM {{schema}}.events e WHERE e.position > last_position ORDER BY e.position LIMIT p_limit) AS w) AS c;
    IF malformed > 0 THEN
        RAISE EXCEPTION 'evtool: an event after position % has no valid chain hash: the Merkle tree cannot cover it; run evtool verify', last_position
            USING ERRCODE = 'XX001';
    END IF;
    tree_size := old_size + added;
    IF added = 0 THEN
        RETURN;
    END IF;
    INSERT INTO {{schema}}.merkle_leaves (leaf, position, hash)
        SELECT old_size + row_number() OVER (ORDER BY e.position) - 1, e.position, sha256('\x00'::bytea || decode(e.hash, 'hex'))
        FROM (SELECT e.position, e.hash FROM {{schema}}.events e WHERE e.position > last_position ORDER BY e.position LIMIT added) AS e;
    SELECT l.position INTO last_position FROM {{schema}}.merkle_leaves l WHERE l.leaf = tree_size - 1;
    -- Level by level, the subtrees the new leaves complete: at level lvl, indexes
    -- [old_size >> lvl, tree_size >> lvl), each the hash of its two children.
    lvl := 1;
    WHILE (tree_size >> lvl) > (old_size >> lvl) LOOP
        IF lvl = 1 THEN
            INSERT INTO {{schema}}.merkle_nodes (level, idx, hash)
                SELECT 1, a.leaf >> 1, sha256('\x01'::bytea || a.hash || b.hash)
                FROM {{schema}}.merkle_leaves a JOIN {{schema}}.merkle_leaves b ON b.leaf = a.leaf + 1
                WHERE a.leaf >= (old_size >> 1) << 1 AND a.leaf < (tree_size >> 1) << 1 AND a.leaf % 2 = 0;
        ELSE
            INSERT INTO {{schema}}.merkle_nodes (level, idx, hash)
                SELECT lvl, a.idx >> 1, sha256('\x01'::bytea || a.hash || b.hash)
                FROM {{schema}}.merkle_nodes a JOIN {{schema}}.merkle_nodes b ON b.level = a.level AND b.idx = a.idx + 1
                WHERE a.level = lvl - 1 AND a.idx >= (old_size >> lvl) << 1 AND a.idx < (tree_size >> lvl) << 1 AND a.idx % 2 = 0;
        END IF;
        GET DIAGNOSTICS made = ROW_COUNT;
        IF made <> (tree_size >> lvl) - (old_size >> lvl) THEN
            RAISE EXCEPTION 'evtool: the kept Merkle tree of % leaves lacks subtrees at level %; run evtool verify', old_size, lvl - 1
                USING ERRCODE = 'XX001';
        END IF;
        lvl := lvl + 1;
    END LOOP;
END
$fn$;

-- Like the seals: written by the owner only (through merkle_extend), read by every role that
-- reads the seals; merkle_extend takes append()'s callers, as append_one did.
REVOKE ALL ON FUNCTION {{schema}}.merkle_extend(integer) FROM PUBLIC;
DO $do$
DECLARE
    grantee text;
BEGIN
    FOR grantee IN
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END
        FROM pg_proc p
        CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) AS a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE p.oid = '{{schema}}.append(text[], integer[], bigint[], integer[], uuid[], text[], json[], json[], timestamptz[])'::regprocedure
          AND a.privilege_type = 'EXECUTE'
    LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO %s', '{{schema}}.merkle_extend(integer)', grantee);
    END LOOP;
    FOR grantee IN
        SELECT quote_ident(r.rolname)
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.seals'::regclass AND a.privilege_type = 'SELECT' AND r.oid <> c.relowner
    LOOP
        EXECUTE format('GRANT SELECT ON %s, %s, %s TO %s', '{{schema}}.merkle_leaves', '{{schema}}.merkle_nodes', '{{schema}}.signed_checkpoints', grantee);
    END LOOP;
END
$do$;
"""#)
}
