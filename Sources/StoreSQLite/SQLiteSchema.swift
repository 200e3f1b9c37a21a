/// The SQLite file's schema, by version. Each step upgrades from the version before it.
/// The steps are frozen once shipped (a test pins each one's SHA-256): a change is a new step
/// at the end, and the text of a step never depends on code that may change later.
///
/// The file carries its own version in `PRAGMA user_version` and identifies itself as an
/// evtool store through `PRAGMA application_id`; `evtool_meta` repeats both in plain
/// words for people who open the file with the `sqlite3` shell.
enum SQLiteSchema {
    /// `PRAGMA application_id` of an evtool store: the bytes "evtl".
    static let applicationID: Int64 = 0x6576_746C

    /// The newest schema this build knows.
    static var currentVersion: Int { steps.count }

    /// `steps[i]` upgrades a file from version i to version i + 1.
    static let steps: [String] = [version1, version2, version3, version4, version5, version6, version7, version8]

    /// What an erased payload (data and metadata) is replaced with.
    static let tombstone = #"{"erased":true}"#

    /// Append-only in the file itself: created after step 3 has filled the hashes. The one
    /// update allowed is an erasure: data and metadata become the tombstone, every other
    /// column stays, and the erasures table already holds the original digests.
    static let appendOnlyTriggers = """
        CREATE TRIGGER events_append_only_delete BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; DELETE is not allowed'); END;

        CREATE TRIGGER events_append_only_update BEFORE UPDATE ON events
        WHEN NOT (
            NEW.data = '\(tombstone)' AND NEW.metadata = '\(tombstone)'
            AND NEW.position IS OLD.position AND NEW.stream_id IS OLD.stream_id
            AND NEW.version IS OLD.version AND NEW.event_id IS OLD.event_id AND NEW.type IS OLD.type
            AND NEW.recorded_at IS OLD.recorded_at AND NEW.hash IS OLD.hash
            AND EXISTS (SELECT 1 FROM erasures WHERE erasures.event_id = OLD.event_id AND erasures.position = OLD.position)
        )
        BEGIN SELECT RAISE(ABORT, 'evtool: events are append-only; the only UPDATE allowed is an erasure'); END;

        CREATE TRIGGER erasures_append_only_update BEFORE UPDATE ON erasures
        BEGIN SELECT RAISE(ABORT, 'evtool: erasures are append-only'); END;
        CREATE TRIGGER erasures_append_only_delete BEFORE DELETE ON erasures
        BEGIN SELECT RAISE(ABORT, 'evtool: erasures are append-only'); END;
        CREATE TRIGGER seals_append_only_update BEFORE UPDATE ON seals
        BEGIN SELECT RAISE(ABORT, 'evtool: seals are append-only'); END;
        CREATE TRIGGER seals_append_only_delete BEFORE DELETE ON seals
        BEGIN SELECT RAISE(ABORT, 'evtool: seals are append-only'); END;
        """
}
