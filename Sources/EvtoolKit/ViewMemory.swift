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
        var newer = -1
        var older = -1
    }

    private struct State {
        var capacity = 0
        var epoch: UInt64 = 0
        /// Fills read before this position are refused (the follower's start, or a forgotten touch).
        var floor: Int64 = .max
        var nodes: [Node] = []
        var free: [Int] = []
        var index: [String: Int] = [:]
        var byTag: [String: Set<String>] = [:]
        var newest = -1
        var oldest = -1
        var touched: [String: Int64] = [:]
        var touchOrder: [(tag: String, position: Int64)] = []
        var touchStart = 0
        var statistics = Statistics()
    }

    /// How many touches are remembered to refuse stale fills; older ones raise the floor.
    public let maximumTouches: Int
    private let state = Mutex(State())

    /// Makes a memory that is off; `maximumTouches` bounds what it remembers of recent touches.
    public init(maximumTouches: Int = 100_000) {
        self.maximumTouches = max(1, maximumTouches)
    }

    /// The bound in bytes (0: off).
    public var capacityBytes: Int { state.withLock { $0.capacity } }

    /// Whether answers are kept.
    public var isOn: Bool { state.withLock { $0.capacity > 0 && $0.floor != .max } }

    /// What it holds and has done.
    public var statistics: Statistics {
        state.withLock { state in
            var statistics = state.statistics
            statistics.count = state.index.count
            return statistics
        }
    }

    /// Turns the memory on with a bound of `capacityBytes`, keeping answers read at `position`
    /// or later: every event after `position` must reach ``touch(_:at:)`` (``ViewMemoryFollower``).
    public func start(capacityBytes: Int, from position: Int64) {
        state.withLock { state in
            state.capacity = max(0, capacityBytes)
            state.floor = position
            state.epoch &+= 1
            Self.removeAll(&state)
        }
    }

    /// Turns it off and drops everything (reads go to the store until ``start(capacityBytes:from:)``).
    public func stop() {
        state.withLock { state in
            state.floor = .max
            state.epoch &+= 1
            Self.removeAll(&state)
        }
    }

    /// The kept answer for `key`, or nil (counted as a miss: the caller reads the store).
    public func lookup(_ key: String) -> Answer? {
        state.withLock { state in
            guard let slot = state.index[key] else {
                if state.capacity > 0, state.floor != .max { state.statistics.misses += 1 }
                return nil
            }
            Self.unlink(slot, &state)
            Self.linkNewest(slot, &state)
            state.statistics.hits += 1
            return state.nodes[slot].answer
        }
    }

    /// Taken before a miss reads the store; ``fill(_:_:validThrough:tags:ticket:)`` checks it.
    /// nil when the memory is off (nothing would be filed).
    public func ticket() -> Ticket? {
        state.withLock { $0.capacity > 0 && $0.floor != .max ? Ticket(epoch: $0.epoch) : nil }
    }

    /// Files `answer` for `key`, read from the store after `ticket` was taken and valid through
    /// `position` (read from the store before the answer), under `tags`; refused (and not kept)
    /// when the memory is off, was cleared since, or a tag was touched after `position`.
    /// - Returns: whether it was kept.
    @discardableResult
    public func fill(_ key: String, _ answer: Answer, validThrough position: Int64, tags: [String], ticket: Ticket) -> Bool {
        let cost = (answer.bytes?.count ?? 0) + key.utf8.count * 2 + tags.reduce(0) { $0 + $1.utf8.count * 2 } + Self.entryOverhead
        return state.withLock { state in
            guard state.capacity > 0, ticket.epoch == state.epoch, position >= state.floor, cost <= state.capacity / 4 else { return false }
            for tag in tags where (state.touched[tag] ?? .min) > position {
                state.statistics.refusedFills += 1
                return false
            }
            if let old = state.index[key] {
                // Another reader filed it meanwhile: keep the one valid through the later position.
                guard state.nodes[old].validThrough < position else { return false }
                Self.remove(old, &state)
            }
            while state.statistics.bytes + cost > state.capacity, state.oldest >= 0 {
                Self.remove(state.oldest, &state)
                state.statistics.evictions += 1
            }
            let node = Node(key: key, answer: answer, validThrough: position, tags: tags, cost: cost)
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
            state.statistics.bytes += cost
            Self.linkNewest(slot, &state)
            return true
        }
    }

    /// Something recorded at `position` may change what is filed under `tags`: drops the
    /// answers filed under them that were read before it, and refuses such fills from now on.
    public func touch(_ tags: [String], at position: Int64) {
        touch(tags.map { ($0, position) })
    }

    /// Touches many tags, each at its position, at once (a batch of the log).
    public func touch(_ touches: [(tag: String, position: Int64)]) {
        guard !touches.isEmpty else { return }
        state.withLock { state in
            for (tag, position) in touches {
                if let old = state.touched[tag], old >= position {
                    // Already remembered at this position or later.
                } else {
                    state.touched[tag] = position
                    state.touchOrder.append((tag, position))
                }
                if let keys = state.byTag[tag] {
                    for key in keys {
                        if let slot = state.index[key], state.nodes[slot].validThrough < position { Self.remove(slot, &state) }
                    }
                }
            }
            // Forget the oldest touches beyond the bound: a fill read before any of them is refused.
            while state.touchOrder.count - state.touchStart > maximumTouches {
                let (tag, position) = state.touchOrder[state.touchStart]
                state.touchStart += 1
                if state.touched[tag] == position { state.touched[tag] = nil }
                if state.floor != .max { state.floor = max(state.floor, position) }
            }
            if state.touchStart > 4_096, state.touchStart * 2 > state.touchOrder.count {
                state.touchOrder.removeFirst(state.touchStart)
                state.touchStart = 0
            }
        }
    }

    /// Drops every answer and refuses the fills that began before (an erasure, a rebuild, a
    /// swapped generation: what no event tells of).
    public func clear() {
        state.withLock { state in
            state.epoch &+= 1
            Self.removeAll(&state)
        }
    }

    // MARK: - Tags and keys

    /// The tag of everything a user's stream decides (their views, their ETag).
    public static func streamTag(_ streamID: String) -> String { "s:" + streamID }

    /// The tag of a listing's cached details (by its document key, ``Projections/ViewKey/listing(_:)``).
    public static func listingTag(_ listingKey: String) -> String { "l:" + listingKey }

    // MARK: - The list

    private static func removeAll(_ state: inout State) {
        state.nodes.removeAll()
        state.free.removeAll()
        state.index.removeAll()
        state.byTag.removeAll()
        state.newest = -1
        state.oldest = -1
        state.statistics.bytes = 0
    }

    private static func remove(_ slot: Int, _ state: inout State) {
        let node = state.nodes[slot]
        unlink(slot, &state)
        state.index[node.key] = nil
        for tag in node.tags {
            state.byTag[tag]?.remove(node.key)
            if state.byTag[tag]?.isEmpty == true { state.byTag[tag] = nil }
        }
        state.statistics.bytes -= node.cost
        state.nodes[slot].answer = Answer(bytes: nil, version: 0)
        state.nodes[slot].tags = []
        state.free.append(slot)
    }

    private static func unlink(_ slot: Int, _ state: inout State) {
        let newer = state.nodes[slot].newer, older = state.nodes[slot].older
        if newer >= 0 { state.nodes[newer].older = older } else { state.newest = older }
        if older >= 0 { state.nodes[older].newer = newer } else { state.oldest = newer }
        state.nodes[slot].newer = -1
        state.nodes[slot].older = -1
    }

    private static func linkNewest(_ slot: Int, _ state: inout State) {
        state.nodes[slot].older = state.newest
        state.nodes[slot].newer = -1
        if state.newest >= 0 { state.nodes[state.newest].newer = slot }
        state.newest = slot
        if state.oldest < 0 { state.oldest = slot }
    }
}
