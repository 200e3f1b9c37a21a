/// The chain hashes of the last append a connection committed, kept so that the kept Merkle
/// tree's follower on the same connection (`evtool serve`'s `KeptTreeFollower`, the bench)
/// takes them from memory instead of reading the rows back (docs/explanation/audit.md, *the follower*).
///
/// One append's events have contiguous positions (the append checks it), so the block is
/// its first event's position and the 32-byte hashes in position order. The block is kept
/// only once its transaction has committed, and stays valid after: committed events are
/// append-only and an erasure keeps the chain hash. An append of more than ``capacity``
/// events, or one that fails, leaves the block of the last one kept.
struct AppendedChain {
    /// The most events kept (2 MiB of hashes).
    static let capacity = 65_536

    /// The position of the block's first event (0: no block).
    private(set) var first: Int64 = 0
    /// The block's chain hashes, 32 bytes each, one after another.
    private(set) var hashes: [UInt8] = []
    private var pendingFirst: Int64 = 0
    private var pending: [UInt8] = []
    private var collecting = false
    private var refused = false

    /// The number of events in the block.
    var count: Int { hashes.count / 32 }

    /// The position of the block's last event (`first` − 1 for none).
    var last: Int64 { first + Int64(count) - 1 }

    /// An append's transaction begins: what it records is kept if it commits.
    mutating func begin() {
        pending.removeAll(keepingCapacity: true)
        collecting = true
        refused = false
    }

    /// The event at `position`, just inserted, has the 32-byte chain hash at `hash`. Ignored
    /// outside an append (``begin()``), and the append is not kept when its positions do not
    /// follow each other or it grows beyond ``capacity``.
    mutating func record(position: Int64, hash: UnsafeRawPointer) {
        guard collecting, !refused else { return }
        if pending.isEmpty {
            pendingFirst = position
        } else if position != pendingFirst + Int64(pending.count / 32) || pending.count >= Self.capacity * 32 {
            refused = true
            return
        }
        pending.append(contentsOf: UnsafeRawBufferPointer(start: hash, count: 32))
    }

    /// The append's transaction committed: its events become the block.
    mutating func commit() {
        defer {
            collecting = false
            pending.removeAll(keepingCapacity: true)
        }
        guard collecting, !refused, !pending.isEmpty else { return }
        swap(&hashes, &pending)
        first = pendingFirst
    }

    /// The append failed (its transaction rolled back): nothing of it is kept.
    mutating func discard() {
        collecting = false
        pending.removeAll(keepingCapacity: true)
    }
}
