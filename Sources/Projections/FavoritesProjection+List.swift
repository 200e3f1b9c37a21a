import Foundation

extension FavoritesProjection {
    /// A user's favorites in the order added, held so that a copy shares almost all of it: a
    /// favorites document kept by time travel (``TimeTravelCache``) and the one folded on from
    /// it share their items, and the first change to the folded one copies a few small pieces,
    /// not the whole list.
    ///
    /// Up to ``indexAbove`` items: a plain array searched from its start (what every ordinary
    /// user has; no more to allocate than one array). Past that: the items in chunks of at
    /// most ``chunkLimit``, each item numbered in the order added (the chunks hold rising
    /// numbers), and an index from listing id to that number split in shards by the id's
    /// hash. Then whether a listing is there is one shard lookup, adding one is an append to
    /// the last chunk, removing one a binary search of the chunks; and the first change after
    /// a copy copies the chunk and shard lists (about count / 32 references) and
    /// the one chunk and shard it changes, instead of every item.
    struct List: Sendable, Equatable, Sequence {
        /// Items above which a list is chunked and indexed.
        static let indexAbove = 32
        /// Items at or below which a chunked list goes back to a plain array.
        static let plainAtOrBelow = 16
        /// The most items in one chunk.
        static let chunkLimit = 64
        /// Index entries per shard on average at most when the index is made; it is made
        /// again with twice the shards when they hold twice that.
        static let shardTarget = 64

        /// The items while the list is plain (``large`` is nil).
        private(set) var small: [Item]
        /// The chunks and the index, once the list has more than ``indexAbove`` items.
        private(set) var large: Large?

        /// A list of `items`, oldest first (chunked and indexed when there are many, unless two
        /// of them have the same listing id: only a list the fold made is indexed, and that
        /// never has).
        init(_ items: [Item]) {
            small = items
            large = items.count > Self.indexAbove ? Large(items) : nil
            if large != nil { small = [] }
        }

        /// How many favorites.
        var count: Int { large?.count ?? small.count }

        /// Whether there are none.
        var isEmpty: Bool { count == 0 }

        /// The items, oldest first (the plain array itself while plain; otherwise made).
        var items: [Item] {
            guard let large else { return small }
            var items: [Item] = []
            items.reserveCapacity(large.count)
            for chunk in large.chunks { for entry in chunk.entries { items.append(entry.item) } }
            return items
        }

        /// Adds `item` last unless its listing is there already; true when added.
        mutating func add(_ item: Item) -> Bool {
            guard large != nil else {
                if small.contains(where: { $0.listingID == item.listingID }) { return false }
                small.append(item)
                // Chunked when it passes the bound (a list with a repeated listing, which only
                // other code can have stored, stays plain: Large is nil for it).
                if small.count == Self.indexAbove + 1, let made = Large(small) {
                    large = made
                    small = []
                }
                return true
            }
            guard !large!.contains(item.listingID) else { return false }
            if !isKnownUniquelyReferenced(&large) { large = large!.copy() }
            return large!.add(item)
        }

        /// Removes the item of `listing`; true when it was there.
        @discardableResult
        mutating func remove(listing: String) -> Bool {
            guard large != nil else {
                let before = small.count
                small.removeAll { $0.listingID == listing }
                return small.count != before
            }
            guard large!.contains(listing) else { return false }
            if !isKnownUniquelyReferenced(&large) { large = large!.copy() }
            let removed = large!.remove(listing)
            if large!.count <= Self.plainAtOrBelow {
                small = items
                large = nil
            }
            return removed
        }

        /// Whether `listing` is one of the favorites.
        func contains(listing: String) -> Bool {
            large?.contains(listing) ?? small.contains { $0.listingID == listing }
        }

        static func == (left: List, right: List) -> Bool {
            left.count == right.count && left.elementsEqual(right)
        }

        func makeIterator() -> Iterator { Iterator(list: self) }

        /// The items in order.
        struct Iterator: IteratorProtocol {
            let list: List
            var chunk = 0
            var index = 0

            mutating func next() -> Item? {
                guard let large = list.large else {
                    guard index < list.small.count else { return nil }
                    index += 1
                    return list.small[index - 1]
                }
                while chunk < large.chunks.count {
                    let entries = large.chunks[chunk].entries
                    if index < entries.count {
                        index += 1
                        return entries[index - 1].item
                    }
                    chunk += 1
                    index = 0
                }
                return nil
            }
        }
    }
}
