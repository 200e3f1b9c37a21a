import Foundation

extension FavoritesProjection.List {
    /// The chunks and the index of a list of more than ``FavoritesProjection/List/indexAbove``
    /// favorites (see ``FavoritesProjection/List``).
    // @unchecked Sendable: a List changes its Large (and a Large its chunks and shards) only
    // after `isKnownUniquelyReferenced` said it holds the only reference, copying it otherwise,
    // so a Large, chunk or shard that two documents (or two threads) can see is never changed.
    final class Large: @unchecked Sendable {
        /// The items in the order added, in chunks of 1 to ``chunkLimit``, never empty.
        var chunks: [Chunk]
        /// Listing id → the number of its item, in a power of two of shards by the id's hash.
        var shards: [Shard]
        /// How many items.
        private(set) var count: Int
        /// The number the next item added gets (numbers rise in the order added).
        private var nextNumber: Int

        /// The chunked list of `items`; nil when two of them have the same listing id (such
        /// a list stays plain, so that removing the listing removes each, as the plain one does).
        init?(_ items: [FavoritesProjection.Item]) {
            var numbers = [[String: Int]](repeating: [:], count: Self.shardCount(for: items.count))
            for (number, item) in items.enumerated() {
                let shard = Self.shard(of: item.listingID, among: numbers.count)
                if numbers[shard].updateValue(number, forKey: item.listingID) != nil { return nil }
            }
            shards = numbers.map(Shard.init)
            chunks = stride(from: 0, to: items.count, by: FavoritesProjection.List.chunkLimit).map { start in
                Chunk((start..<Swift.min(start + FavoritesProjection.List.chunkLimit, items.count)).map { Entry(number: $0, item: items[$0]) })
            }
            count = items.count
            nextNumber = items.count
        }

        private init(chunks: [Chunk], shards: [Shard], count: Int, nextNumber: Int) {
            self.chunks = chunks
            self.shards = shards
            self.count = count
            self.nextNumber = nextNumber
        }

        /// A copy sharing every chunk and shard (about count / 32 references).
        func copy() -> Large {
            Large(chunks: chunks, shards: shards, count: count, nextNumber: nextNumber)
        }

        /// Whether `listing` has an item: one shard lookup.
        func contains(_ listing: String) -> Bool {
            shards[Self.shard(of: listing, among: shards.count)].numbers[listing] != nil
        }

        /// Adds `item` last unless its listing is there; true when added. Call only on a Large
        /// no other list holds.
        func add(_ item: FavoritesProjection.Item) -> Bool {
            let shard = Self.shard(of: item.listingID, among: shards.count)
            guard shards[shard].numbers[item.listingID] == nil else { return false }
            if !isKnownUniquelyReferenced(&shards[shard]) { shards[shard] = shards[shard].copy() }
            shards[shard].numbers[item.listingID] = nextNumber
            let entry = Entry(number: nextNumber, item: item)
            nextNumber += 1
            count += 1
            let last = chunks.count - 1
            if last >= 0, chunks[last].entries.count < FavoritesProjection.List.chunkLimit {
                if !isKnownUniquelyReferenced(&chunks[last]) { chunks[last] = chunks[last].copy() }
                chunks[last].append(entry)
            } else {
                chunks.append(Chunk([entry]))
            }
            if count > 2 * FavoritesProjection.List.shardTarget * shards.count { reindex() }
            return true
        }

        /// Removes the item of `listing`; true when it was there. Call only on a Large no
        /// other list holds. A chunk left empty goes; one that fits in a neighbour with it is
        /// merged into it, so that there are never more than about 2 × count / 64 chunks.
        func remove(_ listing: String) -> Bool {
            let shard = Self.shard(of: listing, among: shards.count)
            guard let number = shards[shard].numbers[listing] else { return false }
            if !isKnownUniquelyReferenced(&shards[shard]) { shards[shard] = shards[shard].copy() }
            shards[shard].numbers.removeValue(forKey: listing)
            count -= 1
            // The last chunk whose first number is at or below the item's.
            var low = 0, high = chunks.count
            while low < high {
                let middle = (low + high) / 2
                if chunks[middle].entries[0].number <= number { low = middle + 1 } else { high = middle }
            }
            let at = low - 1
            if !isKnownUniquelyReferenced(&chunks[at]) { chunks[at] = chunks[at].copy() }
            chunks[at].remove(number: number)
            let limit = FavoritesProjection.List.chunkLimit
            if chunks[at].entries.isEmpty {
                chunks.remove(at: at)
            } else if at + 1 < chunks.count, chunks[at].entries.count + chunks[at + 1].entries.count <= limit {
                chunks[at].append(contentsOf: chunks[at + 1])
                chunks.remove(at: at + 1)
            } else if at > 0, chunks[at - 1].entries.count + chunks[at].entries.count <= limit {
                if !isKnownUniquelyReferenced(&chunks[at - 1]) { chunks[at - 1] = chunks[at - 1].copy() }
                chunks[at - 1].append(contentsOf: chunks[at])
                chunks.remove(at: at)
            }
            return true
        }

        /// Makes the index again with as many shards as the count wants (twice as many).
        private func reindex() {
            var numbers = [[String: Int]](repeating: [:], count: Self.shardCount(for: count))
            for chunk in chunks {
                for entry in chunk.entries {
                    numbers[Self.shard(of: entry.item.listingID, among: numbers.count)][entry.item.listingID] = entry.number
                }
            }
            shards = numbers.map(Shard.init)
        }

        /// Calls `part` with what this list holds in memory, estimated: its own chunk and shard
        /// lists (nil identity: no other list shares them once changed), then each chunk and
        /// shard with its identity (another list may share it).
        func memoryParts(_ part: (ObjectIdentifier?, Int) -> Void) {
            part(nil, 96 + 8 * (chunks.capacity + shards.capacity))
            for chunk in chunks { part(ObjectIdentifier(chunk), chunk.bytes) }
            for shard in shards { part(ObjectIdentifier(shard), shard.bytes) }
        }

        /// Shards for an index of `count` listings: 16 or more, a power of two, about
        /// ``shardTarget`` listings each.
        static func shardCount(for count: Int) -> Int {
            var shards = 16
            while shards * FavoritesProjection.List.shardTarget < count { shards *= 2 }
            return shards
        }

        /// The shard of `listing` among `shards` (a power of two), by its hash in this process.
        static func shard(of listing: String, among shards: Int) -> Int {
            listing.hashValue & (shards - 1)
        }
    }

    /// One item and the number it got when added.
    struct Entry: Sendable {
        var number: Int
        var item: FavoritesProjection.Item
    }

    /// Up to ``chunkLimit`` consecutive items, numbers rising.
    // @unchecked Sendable: changed only by a Large that holds the only reference (see Large).
    final class Chunk: @unchecked Sendable {
        private(set) var entries: [Entry]
        /// The heap bytes of the items' strings, estimated (``FavoritesProjection/Item/heapBytes``).
        private var stringBytes: Int

        init(_ entries: [Entry]) {
            self.entries = entries
            stringBytes = entries.reduce(0) { $0 + $1.item.heapBytes }
        }

        func copy() -> Chunk { Chunk(entries: entries, stringBytes: stringBytes) }

        private init(entries: [Entry], stringBytes: Int) {
            self.entries = entries
            self.stringBytes = stringBytes
        }

        func append(_ entry: Entry) {
            entries.append(entry)
            stringBytes += entry.item.heapBytes
        }

        func append(contentsOf other: Chunk) {
            entries.append(contentsOf: other.entries)
            stringBytes += other.stringBytes
        }

        /// Removes the entry numbered `number` (there is one).
        func remove(number: Int) {
            var low = 0, high = entries.count
            while low < high {
                let middle = (low + high) / 2
                if entries[middle].number < number { low = middle + 1 } else { high = middle }
            }
            stringBytes -= entries[low].item.heapBytes
            entries.remove(at: low)
        }

        /// What the chunk holds in memory, estimated: the object, its array, the items' strings.
        var bytes: Int { 64 + entries.capacity * MemoryLayout<Entry>.stride + stringBytes }
    }

    /// Part of the index: listing id → item number.
    // @unchecked Sendable: changed only by a Large that holds the only reference (see Large).
    final class Shard: @unchecked Sendable {
        var numbers: [String: Int]

        init(_ numbers: [String: Int]) { self.numbers = numbers }

        func copy() -> Shard { Shard(numbers) }

        /// What the shard holds in memory, estimated: the object and its table (the keys'
        /// strings are the items' own, counted with the chunks).
        var bytes: Int { 96 + numbers.capacity * 4 / 3 * (MemoryLayout<String>.stride + MemoryLayout<Int>.stride) }
    }
}

extension FavoritesProjection.Item {
    /// The heap bytes of the item's strings, estimated: a string of more than 15 UTF-8 bytes
    /// has a buffer of its own (a 32-byte header and its bytes, rounded up to 16).
    var heapBytes: Int {
        func bytes(_ string: String) -> Int {
            let count = string.utf8.count
            return count <= 15 ? 0 : 32 + (count + 15) / 16 * 16
        }
        return bytes(listingID) + bytes(summary.name) + bytes(summary.venue) + bytes(summary.localDateTime) + bytes(summary.category)
    }
}
