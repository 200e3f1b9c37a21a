// Frozen once shipped, like every migration (see Migrations.swift).

extension PostgresMigration {
    /// Version 16 (issue 31): `unfinished_copy`, the record of a copy into this schema
    /// (`migrate`) that has not finished. A copy cut short holds a prefix of its source, whose
    /// tombstones may precede the `UserErased` events that cover them; `verify` fails on such a
    /// tombstone exactly as on one written by hand, and this record is how it tells the
    /// operator that the store is an incomplete copy of the named source instead. One row at
    /// most; written before the first batch that copies an erased event, removed when the copy
    /// was compared with its source. Only the owner writes it (as only the owner copies
    /// erasures); every role that reads the events may read it (granted here on an upgraded
    /// store, and by `evtool roles sql`).
    static let version16 = PostgresMigration(version: 16, name: "unfinished_copy: a copy not yet complete", template: #"""
CREATE TABLE IF NOT EXISTS {{schema}}.unfinished_copy (
    id integer PRIMARY KEY CHECK (id = 1),
    source text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now()
);
-- Owned by the schema's owner; read by every role that reads the events (verify as the
-- auditor, migrate as the app), as evtool roles sql grants it.
DO $do$
DECLARE
    owner text := (SELECT quote_ident(n.nspowner::regrole::text) FROM pg_namespace n WHERE n.nspname = '{{schema_name}}');
    grant_row record;
BEGIN
    EXECUTE format('ALTER TABLE %s.unfinished_copy OWNER TO %s', '{{schema}}', owner);
    FOR grant_row IN
        SELECT CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
        FROM pg_class c
        CROSS JOIN LATERAL aclexplode(c.relacl) AS a
        LEFT JOIN pg_roles r ON r.oid = a.grantee
        WHERE c.oid = '{{schema}}.events'::regclass AND a.grantee <> c.relowner AND a.privilege_type = 'SELECT'
    LOOP
        EXECUTE format('GRANT SELECT ON %s TO %s', '{{schema}}.unfinished_copy', grant_row.grantee);
    END LOOP;
END
$do$;
"""#)
}
