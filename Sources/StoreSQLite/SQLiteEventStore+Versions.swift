import CSQLite

extension SQLiteEventStore {
    /// The version of the SQLite library in use (`sqlite3_libversion()`), e.g. `3.45.1`.
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// The schema version of the files this release writes (`PRAGMA user_version`).
    public static var schemaVersion: Int { SQLiteSchema.currentVersion }
}
