import EventLog

/// Finding a place in one stream by position, through the stream's (stream, version) index
/// alone: positions rise with versions within a stream, so a binary search over versions
/// finds it in O(log n) one-event reads, without reading the stream or the log.
public enum StreamSearch {
    /// The version of the stream's first event with a position after `position` (the stream's
    /// version + 1 when there is none). Cost: about log2(stream length) + 1 one-event reads.
    public static func firstVersion(of stream: String, afterPosition position: Int64, in store: any EventStore) throws -> Int64 {
        guard position > 0 else { return 1 }
        var low: Int64 = 1, high = try store.version(of: stream) + 1   // the answer is in low...high
        while low < high {
            let middle = low + (high - low) / 2
            guard let event = try store.read(stream: stream, from: middle, direction: .forwards, limit: 1).first else {
                high = middle
                continue
            }
            if event.position > position { high = event.version } else { low = event.version + 1 }
        }
        return low
    }
}
