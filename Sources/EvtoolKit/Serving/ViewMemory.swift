import EventLog
import Foundation
import Synchronization

/// Current view answers kept in memory by a long-lived server (`evtool serve --view-memory`),
/// so that a read is answered with no store round trip: the bytes of a view's document (or of a
/// response made from documents) and the user's stream version, least recently used out first,
/// within a bound in bytes.
///
/// **Why an answer is current.** Every answer is filed with *tags* (`s:` and a stream id, `l:`
/// and a listing key) and the log position it is valid through: it reflects every event up to
/// that position. Whatever may change it *touches* its tags at the event's position, which drops
/// the answers filed before that position: the server's own writes, before they are
/// acknowledged (``Application/record(_:context:requiredVersion:)``), and every event of the
/// log, other servers' included, as ``ViewMemoryFollower`` reads it. A fill (an answer read
/// from the store after a miss) is refused when a tag of it was touched after the position it
/// was read at, when the touch that would tell has been forgotten (``maximumTouches``), or when
/// the memory was cleared since the fill began (``clear()``: an erasure, a rebuild, a follower
/// that lost the store). So an answer is served from memory only while nothing recorded since
/// it was read concerns it.
///
/// **Shards.** The answers are spread over ``shardCount`` shards by the hash of their key, each
/// with its own lock, so that reads of different users do not queue behind one lock (it was
/// a tenth of a server's samples at 64 connections). What the rules above answer to is shared:
/// the bound in bytes (the least recently used answer of all shards goes first), the clear
/// count, the floor and the remembered touches; a touch drops in every shard.
///
/// Off (``capacityBytes`` 0) until ``start(capacityBytes:from:)``. Safe to share between threads.
public final class ViewMemory: Sendable {
    /// The default bound: 128 MiB (the favorites of 100,000 users take about 70 MiB).
    public static let defaultCapacityBytes = 128 << 20
    /// What one answer costs beyond its bytes, key and tags (the entry, the indexes).
    static let entryOverhead = 256

    /// A kept answer: the bytes (nil: the view holds no document) and the stream version.
    public struct Answer: Sendable, Equatable {
        /// The document's or response's bytes; nil when there is none.
        public var bytes: [UInt8]?
        /// The user's stream version (the ETag), 0 where there is no user.
        public var version: Int64

        /// Makes an answer.
        public init(bytes: [UInt8]?, version: Int64) {
            self.bytes = bytes
            self.version = version
        }
    }

    /// What a fill must show when it is filed: the memory's clear count when its read began.
    public struct Ticket: Sendable {
        let epoch: UInt64
    }

    /// How the memory is doing, for `/metrics` and tests.
    public struct Statistics: Sendable, Equatable {
        /// Reads answered from memory.
        public var hits = 0
        /// Reads that went to the store.
        public var misses = 0
        /// Fills refused because something touched the answer since it was read.
        public var refusedFills = 0
        /// Answers dropped to stay within the bound.
        public var evictions = 0
        /// Answers kept now.
        public var count = 0
        /// Bytes they take now (as counted against the bound).
        public var bytes = 0
    }

    private struct Node {
        var key: String
        var answer: Answer
        var validThrough: Int64
        var tags: [String]
        var cost: Int
        /// When it was last filed or looked up (``useClock``): the least recently used of all
        /// shards goes first.
        var used: UInt64
        var newer = -1
        var older = -1
    }

    /// One shard's answers (those whose key hashes to it): its list, its indexes, its counts.
    private struct Shard {
        /// Whether misses are counted (the memory is on).
        var counting = false
        var nodes: [Node] = []
        var free: [Int] = []
        var index: [String: Int] = [:]
        var byTag: [String: Set<String>] = [:]
        var newest = -1
        var oldest = -1
        var bytes = 0
        var hits = 0
        var misses = 0
        var evictions = 0
    }

    /// A shard's lock (a `Mutex` cannot be an array's element).
    private final class ShardBox: Sendable {
        let state = Mutex(Shard())
    }

    /// What every shard's answers answer to: the bound, the clear count, the floor and the
    /// remembered touches. Lock order: a shard, then this (a fill); a touch, a clear, a start
    /// and a stop take this alone, then each shard alone.
    private struct Control {
        var capacity = 0
        var epoch: UInt64 = 0
        /// Fills read before this position are refused (the follower's start, or a forgotten touch).
        var floor: Int64 = .max
        var touched: [String: Int64] = [:]
        var touchOrder: [(tag: String, position: Int64)] = []
        var touchStart = 0
        var refusedFills = 0
    }

    /// How many shards the answers are spread over (by their key's hash): reads of different
    /// users take different locks.
    static let shardCount = 16

    /// How many touches are remembered to refuse stale fills; older ones raise the floor.
    public let maximumTouches: Int
    private let control = Mutex(Control())
    private let shards: [ShardBox]
    /// The bytes of every shard's answers, plus those of fills making room (≤ the bound).
    private let totalBytes = Atomic<Int>(0)
    private let useClock = Atomic<UInt64>(0)

    /// Makes a memory that is off; `maximumTouches` bounds what it remembers of recent touches.
    public init(maximumTouches: Int = 100_000) {
        self.maximumTouches = max(1, maximumTouches)
        self.shards = (0..<Self.shardCount).map { _ in ShardBox() }
    }

    /// The bound in bytes (0: off).
    public var capacityBytes: Int { control.withLock { $0.capacity } }

    /// Whether answers are kept.
    public var isOn: Bool { control.withLock { $0.capacity > 0 && $0.floor != .max } }

    /// What it holds and has done (summed over the shards).
    public var statistics: Statistics {
        var statistics = Statistics()
        statistics.refusedFills = control.withLock { $0.refusedFills }
        for shard in shards {
            shard.state.withLock { shard in
                statistics.hits += shard.hits
                statistics.misses += shard.misses
                statistics.evictions += shard.evictions
                statistics.count += shard.index.count
            }
        }
        statistics.bytes = totalBytes.load(ordering: .relaxed)
        return statistics
    }

    /// Turns the memory on with a bound of `capacityBytes`, keeping answers read at `position`
    /// or later: every event after `position` must reach ``touch(_:at:)`` (``ViewMemoryFollower``).
    public func start(capacityBytes: Int, from position: Int64) {
        let counting = control.withLock { control in
            control.capacity = max(0, capacityBytes)
            control.floor = position
            control.epoch &+= 1
            return control.capacity > 0
        }
        removeAll(counting: counting)
    }

    /// Turns it off and drops everything (reads go to the store until ``start(capacityBytes:from:)``).
    public func stop() {
        control.withLock { control in
            control.floor = .max
            control.epoch &+= 1
        }
        removeAll(counting: false)
    }

    /// The kept answer for `key`, or nil (counted as a miss: the caller reads the store).
    /// Cost: one hash of the key, its shard's lock.
    public func lookup(_ key: String) -> Answer? {
        shard(of: key).state.withLock { state in
            guard let slot = state.index[key] else {
                if state.counting { state.misses += 1 }
                return nil
            }
            Self.unlink(slot, &state)
            state.nodes[slot].used = useClock.wrappingAdd(1, ordering: .relaxed).newValue
            Self.linkNewest(slot, &state)
            state.hits += 1
            return state.nodes[slot].answer
        }
    }

    /// Taken before a miss reads the store; ``fill(_:_:validThrough:tags:ticket:)`` checks it.
    /// nil when the memory is off (nothing would be filed).
    public func ticket() -> Ticket? {
        control.withLock { $0.capacity > 0 && $0.floor != .max ? Ticket(epoch: $0.epoch) : nil }
    }

    /// Files `answer` for `key`, read from the store after `ticket` was taken and valid through
    /// `position` (read from the store before the answer), under `tags`; refused (and not kept)
    /// when the memory is off, was cleared since, or a tag was touched after `position`.
    /// Room is made first, least recently used of all shards out first.
    /// - Returns: whether it was kept.
    @discardableResult
    public func fill(_ key: String, _ answer: Answer, validThrough position: Int64, tags: [String], ticket: Ticket) -> Bool {
        let cost = (answer.bytes?.count ?? 0) + key.utf8.count * 2 + tags.reduce(0) { $0 + $1.utf8.count * 2 } + Self.entryOverhead
        // Checked once before making room (so a refused fill evicts nothing), and again under
        // the shard's lock (so a touch or clear in between is seen: see ``Control``).
        guard let capacity = control.withLock({ Self.admits(cost: cost, position: position, tags: tags, ticket: ticket, &$0) }) else {
            return false
        }
        totalBytes.add(cost, ordering: .relaxed)
        makeRoom(within: capacity)
        let kept = shard(of: key).state.withLock { state -> Bool in
            guard control.withLock({ Self.admits(cost: cost, position: position, tags: tags, ticket: ticket, &$0) }) != nil else { return false }
            if let old = state.index[key] {
                // Another reader filed it meanwhile: keep the one valid through the later position.
                guard state.nodes[old].validThrough < position else { return false }
                remove(old, &state)
            }
            let node = Node(key: key, answer: answer, validThrough: position, tags: tags, cost: cost,
                            used: useClock.wrappingAdd(1, ordering: .relaxed).newValue)
            let slot: Int
            if let reused = state.free.popLast() {
                slot = reused
                state.nodes[slot] = node
            } else {
                slot = state.nodes.count
                state.nodes.append(node)
            }
            state.index[key] = slot
            for tag in tags { state.byTag[tag, default: []].insert(key) }
            state.bytes += cost
            Self.linkNewest(slot, &state)
            return true
        }
        if !kept { totalBytes.subtract(cost, ordering: .relaxed) }
        return kept
    }

    /// Something recorded at `position` may change what is filed under `tags`: drops the
    /// answers filed under them that were read before it, and refuses such fills from now on.
    public func touch(_ tags: [String], at position: Int64) {
        touch(tags.map { ($0, position) })
    }

    /// Touches many tags, each at its position, at once (a batch of the log).
    /// Cost: the touches remembered, then each shard's lock once.
    public func touch(_ touches: [(tag: String, position: Int64)]) {
        guard !touches.isEmpty else { return }
        control.withLock { control in
            for (tag, position) in touches {
                if let old = control.touched[tag], old >= position {
                    // Already remembered at this position or later.
                } else {
                    control.touched[tag] = position
                    control.touchOrder.append((tag, position))
                }
            }
            // Forget the oldest touches beyond the bound: a fill read before any of them is refused.
            while control.touchOrder.count - control.touchStart > maximumTouches {
                let (tag, position) = control.touchOrder[control.touchStart]
                control.touchStart += 1
                if control.touched[tag] == position { control.touched[tag] = nil }
                if control.floor != .max { control.floor = max(control.floor, position) }
            }
            if control.touchStart > 4_096, control.touchStart * 2 > control.touchOrder.count {
                control.touchOrder.removeFirst(control.touchStart)
                control.touchStart = 0
            }
        }
        // Remembered first: a fill that checked before is filed by now or waits for its shard,
        // where the drop below finds it.
        for shard in shards {
            shard.state.withLock { state in
                guard !state.byTag.isEmpty else { return }
                for (tag, position) in touches {
                    guard let keys = state.byTag[tag] else { continue }
                    for key in keys {
                        if let slot = state.index[key], state.nodes[slot].validThrough < position { remove(slot, &state) }
                    }
                }
            }
        }
    }

    /// Drops every answer and refuses the fills that began before (an erasure, a rebuild, a
    /// swapped generation: what no event tells of).
    public func clear() {
        let counting = control.withLock { control in
            control.epoch &+= 1
            return control.capacity > 0 && control.floor != .max
        }
        removeAll(counting: counting)
    }

    /// The capacity when a fill of `cost` read at `position` under `tags` with `ticket` may
    /// be kept, else nil (a refusal for a touched tag is counted).
    private static func admits(cost: Int, position: Int64, tags: [String], ticket: Ticket, _ control: inout Control) -> Int? {
        guard control.capacity > 0, ticket.epoch == control.epoch, position >= control.floor, cost <= control.capacity / 4 else { return nil }
        for tag in tags where (control.touched[tag] ?? .min) > position {
            control.refusedFills += 1
            return nil
        }
        return control.capacity
    }

    /// The shard that holds `key`'s answer.
    private func shard(of key: String) -> ShardBox {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(Self.shardCount))]
    }

    /// Evicts the least recently used answer of all shards until the bytes are within `capacity`.
    private func makeRoom(within capacity: Int) {
        while totalBytes.load(ordering: .relaxed) > capacity {
            var oldest: (shard: ShardBox, used: UInt64)?
            for shard in shards {
                shard.state.withLock { state in
                    guard state.oldest >= 0 else { return }
                    let used = state.nodes[state.oldest].used
                    if oldest.map({ used < $0.used }) ?? true { oldest = (shard, used) }
                }
            }
            guard let oldest else { return }   // nothing left to evict (what is counted is being filed)
            oldest.shard.state.withLock { state in
                // Unless another fill evicted it meanwhile (then look again).
                guard state.oldest >= 0, state.nodes[state.oldest].used == oldest.used else { return }
                remove(state.oldest, &state)
                state.evictions += 1
            }
        }
    }

    private func removeAll(counting: Bool) {
        for shard in shards {
            shard.state.withLock { state in
                totalBytes.subtract(state.bytes, ordering: .relaxed)
                var emptied = Shard()   // the counts stay
                emptied.counting = counting
                emptied.hits = state.hits
                emptied.misses = state.misses
                emptied.evictions = state.evictions
                state = emptied
            }
        }
    }

    // MARK: - Tags and keys

    /// The tag of everything a user's stream decides (their views, their ETag), by the
    /// stream id's bytes (``Identifier/exactKey(_:)``: two streams whose ids are canonically
    /// equal but differ in bytes have two tags, though `String` compares them equal).
    public static func streamTag(_ streamID: String) -> String { "s:" + Identifier.exactKey(streamID) }

    /// The tag of a listing's cached details (by its document key, ``Projections/ViewKey/listing(_:)``).
    public static func listingTag(_ listingKey: String) -> String { "l:" + listingKey }

    // MARK: - The list

    private func remove(_ slot: Int, _ state: inout Shard) {
        let node = state.nodes[slot]
        Self.unlink(slot, &state)
        state.index[node.key] = nil
        for tag in node.tags {
            state.byTag[tag]?.remove(node.key)
            if state.byTag[tag]?.isEmpty == true { state.byTag[tag] = nil }
        }
        state.bytes -= node.cost
        totalBytes.subtract(node.cost, ordering: .relaxed)
        state.nodes[slot].answer = Answer(bytes: nil, version: 0)
        state.nodes[slot].tags = []
        state.free.append(slot)
    }

    private static func unlink(_ slot: Int, _ state: inout Shard) {
        let newer = state.nodes[slot].newer, older = state.nodes[slot].older
        if newer >= 0 { state.nodes[newer].older = older } else { state.newest = older }
        if older >= 0 { state.nodes[older].newer = newer } else { state.oldest = newer }
        state.nodes[slot].newer = -1
        state.nodes[slot].older = -1
    }

    private static func linkNewest(_ slot: Int, _ state: inout Shard) {
        state.nodes[slot].older = state.newest
        state.nodes[slot].newer = -1
        if state.newest >= 0 { state.nodes[state.newest].newer = slot }
        state.newest = slot
        if state.oldest < 0 { state.oldest = slot }
    }
}
