import EventLog

/// `export`: the log, or a slice of it by position, as lines of a transfer format (``LogRecord``).
public enum LogExport {
    /// Hands `line` the export line of each event after position `from` up to `to`
    /// (inclusive), in position order, reading 1,000 events at a time.
    /// - Returns: how many events were written.
    /// - Throws: the store's errors, and what `line` throws (a full disk), which stops the export.
    @discardableResult
    public static func write(_ store: any EventStore, format: LogRecord.Format, from: Int64 = 0, to: Int64 = .max,
                             line: (String) throws -> Void) throws -> Int {
        var count = 0
        var cursor = from
        while cursor < to {
            let batch = try store.readAll(after: cursor, limit: 1_000)
            guard let last = batch.last else { break }
            for event in batch where event.position <= to {
                try line(LogRecord.line(for: event, format: format))
                count += 1
            }
            cursor = last.position
        }
        return count
    }
}
