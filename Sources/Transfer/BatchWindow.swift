import EventLog

/// The events a copy has taken and not yet committed, each with where it came from (a line
/// number, a source position), and when they make a batch: `batchSize` events, or
/// `maximumBytes` of payloads and metadata, whichever comes first. The bytes bound the memory
/// a batch of large events holds; the count keeps a batch of small ones one transaction's worth.
/// What ``EventCopier`` and ``EventAppender`` batch with.
struct BatchWindow<Item> {
    let batchSize: Int
    var maximumBytes: Int
    private(set) var items: [(item: Item, source: Int)] = []
    private var bytes = 0

    init(batchSize: Int, maximumBytes: Int) {
        self.batchSize = batchSize
        self.maximumBytes = maximumBytes
    }

    var isEmpty: Bool { items.isEmpty }

    /// Adds `item`, whose event is `event`; whether the batch is now full.
    mutating func add(_ item: Item, event: ProposedEvent, source: Int) -> Bool {
        items.append((item, source))
        bytes += event.data.count + event.metadata.count
        return items.count >= batchSize || bytes >= maximumBytes
    }

    /// The items, leaving the window empty.
    mutating func take() -> [(item: Item, source: Int)] {
        defer {
            items.removeAll(keepingCapacity: true)
            bytes = 0
        }
        return items
    }
}
