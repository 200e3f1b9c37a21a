import EventLog

/// The chain hashes of events with contiguous positions that a store handle appended, as
/// `append` returned them (schema 13): one batched append's, or several that followed each
/// other (``PostgresAppendedBlocks``). Kept so that the kept Merkle tree's follower on the same
/// handle (`evtool serve`'s `KeptTreeFollower`, the bench) takes them from memory instead of
/// reading the rows back, as SQLite's ``AppendedChain`` does (docs/explanation/audit.md, *the
/// follower*).
///
/// One append's events have contiguous positions, so the block is its first event's position
/// and the 32-byte hashes in position order. It is kept only once the append committed (the
/// call returned), and the follower uses it only when its events follow the tree's last leaf
/// with no position between them and the store still holds its first and last events with
/// those hashes. An append of more than ``capacity`` events keeps nothing.
struct PostgresAppendedChain: Sendable {
    /// The most events kept (2 MiB of hashes).
    static let capacity = 65_536

    /// The position of the block's first event (0: no block).
    private(set) var first: Int64 = 0
    /// The block's chain hashes, 32 bytes each, one after another.
    private(set) var hashes: [UInt8] = []

    /// The number of events in the block.
    var count: Int { hashes.count / MerkleHash.size }

    /// The position of the block's last event (`first` − 1 for none).
    var last: Int64 { first + Int64(count) - 1 }

    init() {}

    /// A block of `hashes` (32 bytes each) whose first event is at `first`.
    init(first: Int64, hashes: [UInt8]) {
        precondition(hashes.count % MerkleHash.size == 0, "whole hashes")
        self.first = first
        self.hashes = hashes
    }

    /// Adds the block that follows this one (its first position is this one's last + 1).
    mutating func extend(with next: PostgresAppendedChain) {
        precondition(next.first == last + 1, "the next block follows")
        hashes.append(contentsOf: next.hashes)
    }

    /// Forgets the first `count` events of the block.
    mutating func dropFirst(_ count: Int) {
        hashes.removeFirst(min(count, self.count) * MerkleHash.size)
        first += Int64(count)
    }

    /// The block of an append whose `count` events start at `first`, from the `text[]` of hex
    /// chain hashes in `column` of its result; nil when the column is absent or NULL, or holds
    /// another number of hashes or one that is not 64 hex digits.
    static func returned(by result: PostgresResult, column: Int, first: Int64, count: Int) -> PostgresAppendedChain? {
        guard count > 0, count <= capacity, result.columnCount > column, !result.isNull(row: 0, column: column) else { return nil }
        var hashes = [UInt8](repeating: 0, count: count * MerkleHash.size)
        var index = 0
        let decoded: Bool? = try? hashes.withUnsafeMutableBytes { buffer in
            var valid = true
            try result.forEachArrayElement(row: 0, column: column) { text in
                guard valid, index < count,
                      HexDecoding.decode(text, into: UnsafeMutableRawBufferPointer(rebasing: buffer[(index * MerkleHash.size)..<((index + 1) * MerkleHash.size)]))
                else { valid = false; return }
                index += 1
            }
            return valid
        }
        guard decoded == true, index == count else { return nil }
        var block = PostgresAppendedChain()
        block.first = first
        block.hashes = hashes
        return block
    }

    /// The chain hash at `offset` in the block, as the 64 lowercase hex digits the store keeps.
    func hex(at offset: Int) -> String {
        var text = [UInt8](repeating: 0, count: MerkleHash.size * 2)
        hashes.withUnsafeBytes { bytes in
            text.withUnsafeMutableBytes { output in
                HexEncoding.encode(UnsafeRawBufferPointer(rebasing: bytes[(offset * MerkleHash.size)..<((offset + 1) * MerkleHash.size)]), into: output.baseAddress!)
            }
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// The blocks of a store handle's recent batched appends (``PostgresAppendedChain``), each
/// run of contiguous positions kept as one block, so that the kept tree's follower, which runs
/// every so often (`KeptTreeFollower.minimumInterval`), takes every append the handle made
/// since it last ran from memory, not only the last one. Appends commit out of order (a group
/// commit runs beside another), so a block may come before the one it follows. A one-event
/// append (its hash is not returned) or another handle's leaves a gap between runs, which the
/// follower fills from the rows (`merkle_extend`). At most ``PostgresAppendedChain/capacity``
/// hashes are kept; the lowest positions go first.
struct PostgresAppendedBlocks: Sendable {
    /// The runs, by position; none overlaps another or is contiguous with the next.
    private(set) var runs: [PostgresAppendedChain] = []
    /// The events the runs hold.
    private(set) var count = 0

    var isEmpty: Bool { runs.isEmpty }

    /// Keeps the block of an append that committed: joined to the runs it is contiguous
    /// with, or a run of its own. Positions are handed out once, so a block overlaps no run;
    /// one that did (a store emptied and filled again behind the handle) replaces those it
    /// overlaps.
    mutating func keep(_ block: PostgresAppendedChain) {
        guard block.count > 0 else { return }
        runs.removeAll { $0.first <= block.last && block.first <= $0.last }
        var index = runs.firstIndex { $0.first > block.first } ?? runs.endIndex
        if index > 0, runs[index - 1].last + 1 == block.first {
            runs[index - 1].extend(with: block)
            index -= 1
        } else {
            runs.insert(block, at: index)
        }
        if index + 1 < runs.count, runs[index].last + 1 == runs[index + 1].first {
            let next = runs.remove(at: index + 1)
            runs[index].extend(with: next)
        }
        count = runs.reduce(0) { $0 + $1.count }
        while count > PostgresAppendedChain.capacity {
            let over = count - PostgresAppendedChain.capacity
            if runs[0].count <= over {
                count -= runs.removeFirst().count
            } else {
                runs[0].dropFirst(over)
                count -= over
            }
        }
    }

    /// The run that holds the event after `position` (the tree's last leaf): the tree can
    /// take it from memory, from that event on.
    func run(following position: Int64) -> PostgresAppendedChain? {
        runs.first { $0.first <= position + 1 && position < $0.last }
    }

    /// How many positions lie between `position` and the first run that starts after the
    /// next one: what the rows must give before the tree can take that run from memory; nil
    /// when there is no such run.
    func gap(after position: Int64) -> Int? {
        guard let next = runs.first(where: { $0.first > position + 1 }) else { return nil }
        return Int(next.first - position - 1)
    }

    /// Forgets the runs that end at or before `position` (the tree has them).
    mutating func forget(through position: Int64) {
        runs.removeAll { $0.last <= position }
        count = runs.reduce(0) { $0 + $1.count }
    }
}

/// What the kept tree's follower on a store handle last wrote (its size, last position and
/// open tiles), so that its next extension from the handle's appended block needs no read of
/// the tree: `merkle_put` refuses to write on a tree that has another size since.
struct PostgresTreeFrontier: Sendable {
    /// The tree after the write.
    var state: MerkleTreeState
    /// Its open tiles (``MerkleTile/openTileKeys(size:)``), by key.
    var open: [MerkleNodeKey: MerkleTile]
}
