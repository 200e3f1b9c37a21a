import Commands
import EventLog

extension History {
    /// The user's last `limit` entries that pass `filter`, newest first.
    ///
    /// Read backwards from the stream's end through its (stream, version) index, in batches,
    /// so the cost is the entries returned (and those `filter` skips), never the stream from
    /// its start: with `filter.asOf` a position, the stream's version there is found first
    /// (``StreamSearch``, about log2(stream length) one-event reads) and the read starts there.
    public static func latestEntries(of user: String, in store: any EventStore, limit: Int, filter: Filter = Filter()) throws -> [Entry] {
        guard limit > 0 else { return [] }
        let stream = UserStream.id(for: user)
        var from = Int64.max
        if case .position(let position)? = filter.asOf {
            from = try StreamSearch.firstVersion(of: stream, afterPosition: position, in: store) - 1
        }
        var entries: [Entry] = []
        let batchSize = min(max(limit, 50), 1_000)
        while from >= 1, entries.count < limit {
            let batch = try store.read(stream: stream, from: from, direction: .backwards, limit: batchSize)
            for recorded in batch where filter.includes(recorded) {
                entries.append(entry(for: recorded))
                if entries.count == limit { break }
            }
            guard let oldest = batch.last, batch.count == batchSize else { break }
            from = oldest.version - 1
        }
        return entries
    }
}
