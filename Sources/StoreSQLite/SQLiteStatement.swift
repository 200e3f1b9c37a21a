import CSQLite
import Foundation

/// One prepared statement; finalized when released.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw connection.error(code, sql: sql) }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    /// Resets the statement so it can run again, keeping its bindings.
    func rewind() { sqlite3_reset(handle) }

    /// Resets the statement so it can run again, and clears its bindings.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: - Binding (indexes start at 1)

    func bind(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ value: String, at index: Int32) throws {
        var value = value
        try value.withUTF8 { try bindText(UnsafeRawBufferPointer($0), at: index) }
    }

    /// Binds NULL.
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index))
    }

    /// Binds UTF-8 bytes as TEXT; SQLite copies them.
    func bindText(_ value: Data, at index: Int32) throws {
        try value.withUnsafeBytes { try bindText($0, at: index) }
    }

    /// Binds UTF-8 bytes as TEXT; SQLite copies them.
    func bindText(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let code: Int32
        if let base = bytes.baseAddress, bytes.count > 0 {
            code = sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), evtool_sqlite_transient())
        } else {
            code = sqlite3_bind_text(handle, index, "", 0, evtool_sqlite_transient())
        }
        try check(code)
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else { throw connection.error(code, sql: sql) }
    }

    // MARK: - Stepping and reading

    /// Steps once: true when a row is ready to read, false when done.
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error(code, sql: sql)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws {
        defer { sqlite3_reset(handle) }
        while try step() {}
    }

    /// Binds `value` as TEXT at `index` without SQLite copying it, runs the statement, and
    /// binds NULL there again (the bytes are only valid during the run): for large values
    /// written once, such as view documents.
    func run(bindingText value: Data, at index: Int32) throws {
        try value.withUnsafeBytes { bytes in
            defer { sqlite3_bind_null(handle, index) }
            if let base = bytes.baseAddress, bytes.count > 0 {
                try check(sqlite3_bind_text(handle, index, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count), evtool_sqlite_static()))
            } else {
                try check(sqlite3_bind_text(handle, index, "", 0, evtool_sqlite_transient()))
            }
            try run()
        }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column's bytes as UTF-8, valid until the next step or reset.
    func textBytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
        guard let pointer = sqlite3_column_text(handle, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, column)))
    }

    func string(_ column: Int32) -> String { String(decoding: textBytes(column), as: UTF8.self) }
    func data(_ column: Int32) -> Data {
        let bytes = textBytes(column)
        return bytes.isEmpty ? Data() : Data(buffer: bytes)
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
