import CLibPQ
import Foundation

/// One result of a statement (a `PGresult`), freed when the object goes away.
///
/// Rows are read in binary format; the accessors decode PostgreSQL's wire encodings.
final class PostgresResult {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var rowCount: Int { Int(PQntuples(handle)) }

    /// The number of columns.
    var columnCount: Int { Int(PQnfields(handle)) }

    /// Whether a column of a row is NULL.
    func isNull(row: Int, column: Int) -> Bool {
        PQgetisnull(handle, Int32(row), Int32(column)) != 0
    }

    /// The raw bytes of a value (empty for NULL).
    func bytes(row: Int, column: Int) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(handle, Int32(row), Int32(column)))
        guard let start = PQgetvalue(handle, Int32(row), Int32(column)) else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: UnsafeRawPointer(start), count: length)
    }

    /// A binary `bigint`.
    func int64(row: Int, column: Int) throws -> Int64 {
        let raw = bytes(row: row, column: column)
        guard raw.count == 8 else { throw shapeError("expected 8 bytes of bigint in column \(column)") }
        return Int64(bigEndian: raw.loadUnaligned(as: Int64.self))
    }

    /// A binary `integer`.
    func int32(row: Int, column: Int) throws -> Int32 {
        let raw = bytes(row: row, column: column)
        guard raw.count == 4 else { throw shapeError("expected 4 bytes of integer in column \(column)") }
        return Int32(bigEndian: raw.loadUnaligned(as: Int32.self))
    }

    /// A binary `boolean`.
    func bool(row: Int, column: Int) throws -> Bool {
        let raw = bytes(row: row, column: column)
        guard raw.count == 1 else { throw shapeError("expected 1 byte of boolean in column \(column)") }
        return raw[0] != 0
    }

    /// A `text` or `json` value (binary format is the UTF-8 text).
    func string(row: Int, column: Int) -> String {
        String(decoding: bytes(row: row, column: column), as: UTF8.self)
    }

    /// A `json` value's exact bytes.
    func data(row: Int, column: Int) -> Data {
        Data(bytes(row: row, column: column))
    }

    /// A binary `uuid`.
    func uuid(row: Int, column: Int) throws -> UUID {
        let raw = bytes(row: row, column: column)
        guard raw.count == 16 else { throw shapeError("expected 16 bytes of uuid in column \(column)") }
        var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &value) { $0.copyMemory(from: raw) }
        return UUID(uuid: value)
    }

    /// A binary one-dimensional `bigint[]` without NULLs.
    func int64Array(row: Int, column: Int) throws -> [Int64] {
        let raw = bytes(row: row, column: column)
        func word(_ offset: Int) throws -> Int32 {
            guard offset + 4 <= raw.count else { throw shapeError("truncated array in column \(column)") }
            return Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        }
        let dimensions = try word(0)
        if dimensions == 0 { return [] }
        guard dimensions == 1 else { throw shapeError("expected a one-dimensional array in column \(column)") }
        let count = Int(try word(12))
        var values: [Int64] = []
        values.reserveCapacity(count)
        var offset = 20
        for _ in 0..<count {
            guard try word(offset) == 8, offset + 12 <= raw.count else { throw shapeError("unexpected array element in column \(column)") }
            values.append(Int64(bigEndian: raw.loadUnaligned(fromByteOffset: offset + 4, as: Int64.self)))
            offset += 12
        }
        return values
    }

    /// Calls `body` with each element of a binary one-dimensional array without NULLs (its
    /// bytes in place, valid only during the call), in order.
    func forEachArrayElement(row: Int, column: Int, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let raw = bytes(row: row, column: column)
        func word(_ offset: Int) throws -> Int32 {
            guard offset + 4 <= raw.count else { throw shapeError("truncated array in column \(column)") }
            return Int32(bigEndian: raw.loadUnaligned(fromByteOffset: offset, as: Int32.self))
        }
        let dimensions = try word(0)
        if dimensions == 0 { return }
        guard dimensions == 1 else { throw shapeError("expected a one-dimensional array in column \(column)") }
        let count = Int(try word(12))
        var offset = 20
        for _ in 0..<count {
            let length = Int(try word(offset))
            guard length >= 0, offset + 4 + length <= raw.count else { throw shapeError("unexpected array element in column \(column)") }
            try body(UnsafeRawBufferPointer(rebasing: raw[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
    }

    /// A binary `timestamptz` as microseconds since 1970 (the wire value counts from 2000).
    func unixMicroseconds(row: Int, column: Int) throws -> Int64 {
        try int64(row: row, column: column) + 946_684_800_000_000
    }

    private func shapeError(_ message: String) -> PostgresError {
        PostgresError(kind: .unexpectedResult, sqlState: nil, message: message, constraint: nil, sql: nil, server: nil)
    }
}
