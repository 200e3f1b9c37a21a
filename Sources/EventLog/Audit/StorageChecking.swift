/// A store whose storage engine can check the structure it keeps the log in (SQLite's
/// `PRAGMA quick_check`: every page, every b-tree's order, every record's format). `verify`
/// runs it besides the hash chains, which cover what each event holds, not how the file
/// keeps the rows: a row whose position a page-level edit rewrote still chains.
public protocol StorageChecking {
    /// What the check is called, for messages: `SQLite's PRAGMA quick_check`.
    var storageCheckName: String { get }

    /// What the engine finds wrong, in its own words (at most `limit` lines); empty when it
    /// finds nothing. Cost: one read of the whole store.
    func storageProblems(limit: Int) throws -> [String]
}
