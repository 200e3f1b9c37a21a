import EventLog
import Foundation

// MARK: - verify's fast path (docs/explanation/audit.md, "Cost")

extension PostgresEventStore: ChainRowReading {
    /// Hands `verify` the rows after `position` as the server sent them (binary format: text
    /// and json values are their UTF-8 bytes), without building ``EventLog/RecordedEvent``s:
    /// only the event id and the recording time are turned into the text the chain hashes,
    /// into two small buffers reused for every row. The rows are `readAll`'s: the same
    /// statement, the same gap-safe prefix, the same wait (up to 2 s) for events held back by
    /// a transaction still running, so verify sees exactly the log a rebuild sees.
    /// Cost: O(log n + limit); one statement, one result in memory.
    public func forEachChainRow(after position: Int64, limit: Int, _ body: (ChainRow) throws -> Bool) throws -> (accepted: Int, declined: Int64?) {
        guard limit > 0 else { return (0, nil) }
        var binds = PostgresBinds()
        binds.append(int8: position)
        binds.append(int8: Int64(limit))
        let clock = ContinuousClock()
        let deadline = clock.now + holdBackWait
        var pause = Duration.microseconds(50)
        var result: PostgresResult
        var safe = 0
        while true {
            result = try withRetry { connection in
                try connection.query(schema.readAllSQL, types: [PostgresType.int8, PostgresType.int8], binds: binds)
            }
            // Positions and transaction ids rise together, so the safe rows are a prefix.
            safe = 0
            while safe < result.rowCount, try result.bool(row: safe, column: 9) { safe += 1 }
            if safe == result.rowCount || clock.now >= deadline { break }
            Thread.sleep(forTimeInterval: pause.timeInterval)
            pause = min(pause * 2, .milliseconds(5))
        }
        var idText = [UInt8](repeating: 0, count: 36)
        var timeText: [UInt8] = []
        timeText.reserveCapacity(27)
        var accepted = 0
        for row in 0..<safe {
            let rowPosition = try result.int64(row: row, column: 0)
            let id = result.bytes(row: row, column: 3)
            guard id.count == 16 else {
                throw EventStoreError.corrupt("the event at position \(rowPosition) has an id of \(id.count) bytes, not a uuid's 16")
            }
            Self.writeUUIDText(id, into: &idText)
            timeText.removeAll(keepingCapacity: true)
            Timestamp.append(microseconds: try result.unixMicroseconds(row: row, column: 7), to: &timeText)
            let keep = try idText.withUnsafeBytes { idBytes in
                try timeText.withUnsafeBytes { timeBytes in
                    try body(ChainRow(position: rowPosition, version: try result.int64(row: row, column: 2),
                                      stream: result.bytes(row: row, column: 1), idText: idBytes,
                                      type: result.bytes(row: row, column: 4), recordedAtText: timeBytes,
                                      data: result.bytes(row: row, column: 5), metadata: result.bytes(row: row, column: 6),
                                      hashText: result.bytes(row: row, column: 8)))
                }
            }
            guard keep else { return (accepted, rowPosition) }
            accepted += 1
        }
        return (accepted, nil)
    }

    /// The canonical lowercase text of a binary uuid (as ``Foundation/UUID/lowercaseString``
    /// prints it), written into a 36-byte buffer.
    static func writeUUIDText(_ raw: UnsafeRawBufferPointer, into text: inout [UInt8]) {
        text.withUnsafeMutableBufferPointer { out in
            var index = 0
            for offset in 0..<16 {
                if offset == 4 || offset == 6 || offset == 8 || offset == 10 {
                    out[index] = UInt8(ascii: "-"); index += 1
                }
                let byte = raw[offset]
                out[index] = hexDigits[Int(byte >> 4)]
                out[index + 1] = hexDigits[Int(byte & 0x0F)]
                index += 2
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
