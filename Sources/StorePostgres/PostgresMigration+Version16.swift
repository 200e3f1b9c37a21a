// Frozen once shipped, like every migration (see PostgresMigration+All.swift).

extension PostgresMigration {
    /// Version 16 (issue 31): `unfinished_copy`, the record of a copy into this schema
    /// (`migrate`) that has not finished. A copy cut short holds a prefix of its source, whose
    /// tombstones may precede the `UserErased` events that cover them; `verify` fails on such a
    /// tombstone exactly as on one written by hand, and this record is how it tells the
    /// operator that the store is an incomplete copy of the named source instead. One row at
    /// most; written before the first batch that copies an erased event, removed when the copy
    /// was compared with its source. Only the owner writes it (as only the owner copies
    /// erasures); `evtool roles sql` lets the app and auditor roles read it.
    static let version16 = PostgresMigration(version: 16, name: "unfinished_copy: a copy not yet complete", template: #"""
CREATE TABLE IF NOT EXISTS {{schema}}.unfinished_copy (
    id integer PRIMARY KEY CHECK (id = 1),
    source text NOT NULL,
    started_at timestamptz NOT NULL DEFAULT now()
);
"""#)
}
