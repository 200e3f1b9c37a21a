import Foundation

/// A view document that can say what it holds in memory, for ``TimeTravelCache``'s bound: its
/// parts with their bytes (estimated), each part another kept document may share with its
/// identity, so that the cache counts it once however many kept states hold it.
protocol MemoryCost {
    /// Calls `part` with each part's identity (nil: this document's alone) and bytes.
    func memoryParts(_ part: (ObjectIdentifier?, Int) -> Void)
}

extension FavoritesProjection.Document: MemoryCost {
    /// A plain list: its array and the items' strings; a chunked one: its chunk and shard
    /// lists, then each chunk and shard (shared with the documents it was copied from).
    func memoryParts(_ part: (ObjectIdentifier?, Int) -> Void) {
        if let large = list.large {
            large.memoryParts(part)
        } else {
            part(nil, 64 + list.small.capacity * MemoryLayout<FavoritesProjection.Item>.stride + list.small.reduce(0) { $0 + $1.heapBytes })
        }
    }
}

extension RecentSearchesProjection.Document: MemoryCost {
    /// Its array and, per item, 64 bytes for the strings (at most 20 items: an estimate).
    func memoryParts(_ part: (ObjectIdentifier?, Int) -> Void) {
        part(nil, 64 + items.capacity * MemoryLayout<RecentSearchesProjection.Item>.stride + 64 * items.count)
    }
}

extension RecentlyViewedProjection.Document: MemoryCost {
    /// Its array and, per item, 64 bytes for the strings (at most 20 items: an estimate).
    func memoryParts(_ part: (ObjectIdentifier?, Int) -> Void) {
        part(nil, 64 + items.capacity * MemoryLayout<RecentlyViewedProjection.Item>.stride + 64 * items.count)
    }
}
