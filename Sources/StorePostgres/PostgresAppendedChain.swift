import EventLog

/// The chain hashes of the last batched append a store handle committed, as `append` returned
/// them (schema 13), kept so that the kept Merkle tree's follower on the same handle
/// (`evtool serve`'s `KeptTreeFollower`, the bench) takes them from memory instead of reading
/// the rows back, as SQLite's ``AppendedChain`` does (docs/explanation/audit.md, *the follower*).
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

/// What the kept tree's follower on a store handle last wrote (its size, last position and
/// open tiles), so that its next extension from the handle's appended block needs no read of
/// the tree: `merkle_put` refuses to write on a tree that has another size since.
struct PostgresTreeFrontier: Sendable {
    /// The tree after the write.
    var state: MerkleTreeState
    /// Its open tiles (``MerkleTile/openTileKeys(size:)``), by key.
    var open: [MerkleNodeKey: MerkleTile]
}
