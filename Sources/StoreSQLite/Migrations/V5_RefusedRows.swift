// Frozen: the text of a step that has shipped never changes (a test pins each one's
// SHA-256). A change is a new step at the end (SQLiteSchema.steps lists them in order).

extension SQLiteSchema {
    /// Version 5: rows that appends cannot produce are refused by the file itself. An
    /// append takes the next rowid, so positions and versions start at 1; a row put at
    /// position 0 or below (which a read in position order never visits) is refused.
    /// `evtool verify` also counts the table's rows, for files whose triggers were dropped.
    static let version5 = """
        CREATE TRIGGER events_position_range AFTER INSERT ON events
        WHEN NEW.position < 1 OR NEW.version < 1
        BEGIN SELECT RAISE(ABORT, 'evtool: events have positions and versions from 1 up; a row outside them is refused'); END;
        """
}
