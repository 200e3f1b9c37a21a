import CSQLite
import Foundation

/// The client's SQLite file: the outbox, the cached server answers and a few settings.
/// One connection, used under the client's lock; WAL, so another process may read it.
final class LocalDatabase {
    /// A value bound to or read from a statement.
    enum Value {
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob(Data)
        case null

        var integer: Int64? { if case let .integer(value) = self { return value }; return nil }
        var real: Double? {
            switch self {
            case let .real(value): return value
            case let .integer(value): return Double(value)
            default: return nil
            }
        }
        var text: String? { if case let .text(value) = self { return value }; return nil }
        var blob: Data? {
            switch self {
            case let .blob(value): return value
            case let .text(value): return Data(value.utf8)
            default: return nil
            }
        }
    }

    private var handle: OpaquePointer?
    let path: String

    /// Opens (creating when missing) the file at `path` and makes its tables.
    init(path: String) throws(ClientError) {
        self.path = path
        var opened: OpaquePointer?
        let status = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX, nil)
        handle = opened
        guard status == SQLITE_OK else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(opened)
            handle = nil
            throw ClientError.storage("cannot open the client's file '\(path)': \(message)")
        }
        sqlite3_busy_timeout(handle, 10_000)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("""
            CREATE TABLE IF NOT EXISTS outbox (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                key TEXT NOT NULL UNIQUE,
                kind TEXT NOT NULL,
                listing TEXT,
                body BLOB,
                occurred_at REAL NOT NULL,
                state TEXT NOT NULL DEFAULT 'pending',
                version INTEGER
            )
            """)
        try execute("CREATE TABLE IF NOT EXISTS refused (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, kind TEXT NOT NULL, listing TEXT, body BLOB, occurred_at REAL NOT NULL, problem BLOB NOT NULL)")
        try execute("CREATE TABLE IF NOT EXISTS cache (name TEXT PRIMARY KEY, etag TEXT, body BLOB NOT NULL, version INTEGER NOT NULL)")
        try execute("CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL)")
    }

    deinit { sqlite3_close(handle) }

    private func failure(_ what: String) -> ClientError {
        ClientError.storage("the client's file '\(path)': \(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// Runs SQL with no result.
    func execute(_ sql: String, _ values: [Value] = []) throws(ClientError) {
        _ = try query(sql, values)
    }

    /// Runs SQL and returns its rows.
    @discardableResult
    func query(_ sql: String, _ values: [Value] = []) throws(ClientError) -> [[Value]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure("cannot prepare a statement") }
        defer { sqlite3_finalize(statement) }
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case let .integer(number): sqlite3_bind_int64(statement, position, number)
            case let .real(number): sqlite3_bind_double(statement, position, number)
            case let .text(text): sqlite3_bind_text(statement, position, text, -1, evtool_sqlite_transient())
            case let .blob(data):
                _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), evtool_sqlite_transient()) }
            case .null: sqlite3_bind_null(statement, position)
            }
        }
        var rows: [[Value]] = []
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { break }
            guard status == SQLITE_ROW else { throw failure("a statement failed") }
            var row: [Value] = []
            for column in 0..<sqlite3_column_count(statement) {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_TEXT: row.append(.text(String(cString: sqlite3_column_text(statement, column))))
                case SQLITE_BLOB:
                    let count = Int(sqlite3_column_bytes(statement, column))
                    row.append(.blob(count == 0 ? Data() : Data(bytes: sqlite3_column_blob(statement, column), count: count)))
                default: row.append(.null)
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Runs `body` in one transaction (`BEGIN IMMEDIATE`): all of it is kept, or none.
    func transaction<T>(_ body: () throws(ClientError) -> T) throws(ClientError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A setting's value, or nil.
    func setting(_ name: String) throws(ClientError) -> String? {
        try query("SELECT value FROM settings WHERE name = ?", [.text(name)]).first?.first?.text
    }

    /// Sets a setting.
    func setSetting(_ name: String, _ value: String) throws(ClientError) {
        try execute("INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value", [.text(name), .text(value)])
    }
}
