import CSQLite
import Glibc

/// A failure reported by SQLite: its extended result code, its message and the SQL that failed.
///
/// Bound values never appear here: they can be personal data.
public struct SQLiteError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// SQLite's extended result code (e.g. 2067 for a unique-constraint violation).
    public var code: ResultCode
    /// SQLite's own message (`sqlite3_errmsg`).
    public var message: String
    /// The statement that failed, if any.
    public var sql: String?
    /// The operating system's error number behind an I/O or open failure
    /// (`sqlite3_system_errno`, e.g. `EACCES`), 0 when there is none.
    public var systemErrno: Int32 = 0

    /// Makes an error.
    public init(code: ResultCode, message: String, sql: String?, systemErrno: Int32 = 0) {
        self.code = code
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// Whether the failure means this process may not read or write the file or its folder:
    /// `SQLITE_PERM`, a read-only database (other than one moved while open), or an open or
    /// I/O failure whose system error is `EACCES` or `EPERM`.
    public var meansPermissionDenied: Bool {
        switch code.primary {
        case .permission: return true
        case .readOnly: return code != .readOnlyMoved
        case .cantOpen, .ioError: return systemErrno == EACCES || systemErrno == EPERM
        default: return false
        }
    }

    /// The code and SQLite's message, never the SQL text: whatever prints the error shows a
    /// user no statement (evtool's, not theirs).
    public var description: String { "SQLite error \(code.rawValue): \(message)" }

    /// ``description`` and the statement that failed, for tests and debugging.
    public var debugDescription: String {
        guard let sql else { return description }
        return "SQLite error \(code.rawValue): \(message) (in: \(sql))"
    }

    /// An SQLite result code; the primary code is the low byte of an extended one.
    public struct ResultCode: RawRepresentable, Hashable, Sendable {
        /// The primary result code (`SQLITE_…`).
        public var rawValue: Int32
        /// Makes a result code.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary result code (extended code with the high bytes removed).
        public var primary: ResultCode { ResultCode(rawValue: rawValue & 0xFF) }

        /// `SQLITE_BUSY`: another connection holds the lock.
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        /// `SQLITE_LOCKED`: a table is locked within this connection.
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        /// `SQLITE_READONLY`: the database may not be written.
        public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        /// `SQLITE_CORRUPT`: the file is damaged.
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        /// `SQLITE_FULL`: the disk is full.
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        /// `SQLITE_CANTOPEN`: the file cannot be opened.
        public static let cantOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        /// `SQLITE_CONSTRAINT`: a constraint (a unique index, a trigger) refused the change.
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        /// `SQLITE_NOTADB`: the file is not an SQLite database.
        public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)
        /// `SQLITE_PERM`: access was denied.
        public static let permission = ResultCode(rawValue: SQLITE_PERM)
        /// `SQLITE_READONLY_DBMOVED`: the file was renamed or deleted while open (not a
        /// question of permission).
        public static let readOnlyMoved = ResultCode(rawValue: SQLITE_READONLY | (4 << 8))
        /// `SQLITE_CONSTRAINT_UNIQUE`: SQLITE_CONSTRAINT | (8 << 8).
        public static let uniqueConstraint = ResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
        /// `SQLITE_CONSTRAINT_TRIGGER`: a RAISE(ABORT) from a trigger.
        public static let triggerConstraint = ResultCode(rawValue: SQLITE_CONSTRAINT | (7 << 8))
    }
}
