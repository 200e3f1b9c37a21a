import CSQLite
import Foundation

/// One open SQLite database handle, with a cache of prepared statements keyed by SQL.
///
/// Not thread-safe: one thread uses it at a time. ``SQLiteEventStore`` keeps its connection
/// behind a lock (`Locked`), and a reader connection belongs to one read between
/// leaving its pool and going back (hence `@unchecked Sendable`: it is handed between
/// threads, never shared).
final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// The connection's `PRAGMA synchronous` level, read once by ``withoutWaitingForTheDisk(_:)``
    /// (a PRAGMA is compiled again at every run, so reading it at every kept-tree extension
    /// cost a statement's preparation).
    var synchronousLevel: Int64?
    /// The chain hashes of the last append this connection committed, for the kept tree's
    /// follower on the same connection.
    var appendedChain = AppendedChain()

    /// Runs `body` (a transaction writing derived data: the kept tree, the views) with
    /// `synchronous=NORMAL`: in WAL mode its commit does not wait for the disk, and a power
    /// loss can only take back such commits, which the next extension or catch-up redoes from
    /// the log (events keep their own commits' level). Restores the connection's level after.
    func withoutWaitingForTheDisk<T>(_ body: () throws -> T) throws -> T {
        let synchronous: Int64
        if let known = synchronousLevel {
            synchronous = known
        } else {
            synchronous = try scalarInt("PRAGMA synchronous") ?? 2
            synchronousLevel = synchronous
        }
        guard synchronous > 1 else { return try body() }
        try statement("PRAGMA synchronous=NORMAL").run()
        let result: T
        do {
            result = try body()
        } catch {
            // The body's error is the one to report; the level is restored all the same.
            try statement("PRAGMA synchronous=\(synchronous)").run()
            throw error
        }
        // Events that this connection appends next must wait for the disk again: a failure
        // to restore the level is thrown, not dropped.
        try statement("PRAGMA synchronous=\(synchronous)").run()
        return result
    }

    /// Opens (and creates, when `create` is set) the database at `path`; `:memory:` for a
    /// private in-memory database.
    init(path: String, create: Bool) throws {
        var db: OpaquePointer?
        var flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX
        if create { flags |= SQLITE_OPEN_CREATE }
        let code = sqlite3_open_v2(path, &db, flags, nil)
        guard code == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            let systemErrno = db.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(db)
            throw SQLiteError(code: .init(rawValue: code), message: message, sql: nil, systemErrno: systemErrno)
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
    }

    deinit {
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// The error SQLite holds for this connection after a failed call.
    func error(_ code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: .init(rawValue: code), message: String(cString: sqlite3_errmsg(handle)), sql: sql,
                    systemErrno: sqlite3_system_errno(handle))
    }

    /// Runs one or more statements that take no parameters and return no rows we need.
    func execute(_ sql: String) throws {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    /// The cached prepared statement for `sql`, reset and with its bindings cleared.
    func statement(_ sql: String) throws -> SQLiteStatement {
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        let prepared = try SQLiteStatement(connection: self, sql: sql)
        statements[sql] = prepared
        return prepared
    }

    /// Runs `body` in a transaction begun with `mode`; commits when it returns and rolls back
    /// when it throws, rethrowing the first error.
    func transaction<T>(_ mode: String = "IMMEDIATE", _ body: () throws -> T) throws -> T {
        try execute("BEGIN \(mode)")
        let result: T
        do {
            result = try body()
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
        do {
            try execute("COMMIT")
        } catch {
            if sqlite3_get_autocommit(handle) == 0 { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw error
        }
        return result
    }

    /// The single integer the query returns (first column of its first row), or nil for no row
    /// or a NULL.
    func scalarInt(_ sql: String, _ bind: (SQLiteStatement) throws -> Void = { _ in }) throws -> Int64? {
        let statement = try statement(sql)
        try bind(statement)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return statement.isNull(0) ? nil : statement.int64(0)
    }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
}
