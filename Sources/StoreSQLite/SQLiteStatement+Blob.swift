import CSQLite

// BLOB columns (the kept Merkle tree's tiles, schema 7).

extension SQLiteStatement {
    /// Binds bytes as a BLOB; SQLite copies them.
    func bindBlob(_ bytes: [UInt8], at index: Int32) throws {
        let code = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_blob(handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), evtool_sqlite_transient())
        }
        guard code == SQLITE_OK else { throw SQLiteError(code: .init(rawValue: code), message: "cannot bind a BLOB", sql: sql, systemErrno: 0) }
    }

    /// Binds the bytes at `bytes` as a BLOB; SQLite copies them (the caller's buffer may go).
    func bindBlob(_ bytes: UnsafeRawBufferPointer, at index: Int32) throws {
        let code = sqlite3_bind_blob(handle, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(bytes.count), evtool_sqlite_transient())
        guard code == SQLITE_OK else { throw SQLiteError(code: .init(rawValue: code), message: "cannot bind a BLOB", sql: sql, systemErrno: 0) }
    }

    /// The column's bytes (a BLOB, or a TEXT's bytes), copied.
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: pointer, count: count))
    }
}
