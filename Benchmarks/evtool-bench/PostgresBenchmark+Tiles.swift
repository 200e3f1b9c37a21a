import CLibPQ
import Foundation

extension PostgresBenchmark {
    /// The rows of a store schema's kept Merkle tree and the bytes of their hashes, read with libpq.
    func tileTotals(schema: String) throws -> (rows: Int64, bytes: Int64) {
        try firstRow("SELECT count(*), coalesce(sum(length(hashes)), 0) FROM \(schema).merkle_tiles") { result in
            guard let rows = Int64(String(cString: PQgetvalue(result, 0, 0))), let bytes = Int64(String(cString: PQgetvalue(result, 0, 1))) else { return nil }
            return (rows, bytes)
        }
    }

    /// Each tile of `schema`'s tree (``TileShapes``).
    func tileShapes(schema: String) throws -> [String: Int64] {
        try firstRow("SELECT coalesce(string_agg(level || '/' || idx || '/' || length(hashes), ' '), '') FROM \(schema).merkle_tiles") {
            TileShapes.parse(String(cString: PQgetvalue($0, 0, 0)))
        }
    }

    /// The first row of `sql` on a connection of its own, as `read` takes it (nil: not readable).
    private func firstRow<Value>(_ sql: String, _ read: (OpaquePointer) -> Value?) throws -> Value {
        guard let connection = PQconnectdb(url) else { throw CLIError(message: "benchmark: cannot connect to read the tiles", code: .failure) }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK else {
            throw CLIError(message: "benchmark: cannot connect to read the tiles: \(String(cString: PQerrorMessage(connection)))", code: .failure)
        }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_TUPLES_OK, PQntuples(result) == 1, let result, let value = read(result) else {
            throw CLIError(message: "benchmark: cannot read the tiles: \(String(cString: PQerrorMessage(connection)))", code: .failure)
        }
        return value
    }
}
