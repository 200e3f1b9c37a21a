// Frozen: the text of a migration that has shipped never changes (a test pins each one's
// SHA-256). A change to the schema or to the append function is a new migration at the end
// (Migrations/Migrations.swift lists them in order). Only `{{schema}}` (the quoted schema
// name) and `{{lock_key}}` (the schema's advisory-lock key, derived from the name; versions
// 1–3 used it) are substituted.

extension PostgresMigration {
    /// Version 2: views and their checkpoints, beside the log, so that a batch of view changes and the checkpoint it reached commit in one transaction.
    static let version2 = PostgresMigration(version: 2, name: "views", template: #"""
CREATE TABLE {{schema}}.projections (
    name text NOT NULL,
    generation integer NOT NULL,
    version integer NOT NULL,
    position bigint NOT NULL,
    active boolean NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (name, generation)
);
COMMENT ON TABLE {{schema}}.projections IS 'evtool views: one row per generation of each view, with its checkpoint (the last position applied)';

CREATE TABLE {{schema}}.view_documents (
    projection text NOT NULL,
    generation integer NOT NULL,
    key text NOT NULL,
    document json NOT NULL,
    PRIMARY KEY (projection, generation, key)
);
COMMENT ON TABLE {{schema}}.view_documents IS 'evtool views: one JSON document per key of a view, e.g. favorites of one user';
"""#)
}
