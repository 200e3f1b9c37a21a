/// Inclusion and consistency proofs of RFC 9162 §2.1.3 and §2.1.4: which subtrees a proof is
/// made of (so a store can compute them from its leaves in one pass, see
/// ``MerkleProofBuilder``), and the verifications, which need no store.
public enum MerkleProof {
    /// The leaf ranges whose subtree roots make the inclusion proof of leaf `index` in the tree
    /// of `size` leaves (RFC 9162 PATH), in proof order (nearest the leaf first).
    /// - Throws: ``MerkleProofError/impossible(_:)`` when `index` >= `size`.
    public static func inclusionRanges(index: UInt64, size: UInt64) throws(MerkleProofError) -> [Range<UInt64>] {
        guard index < size else { throw .impossible("leaf index \(index) is not below the tree size \(size)") }
        var ranges: [Range<UInt64>] = []
        var low: UInt64 = 0, high = size, target = index
        // Walk from the root down; the siblings come out root first, so reverse at the end.
        while high - low > 1 {
            let k = MerkleHash.split(high - low)
            if target < k {
                ranges.append((low + k)..<high)
                high = low + k
            } else {
                ranges.append(low..<(low + k))
                low += k
                target -= k
            }
        }
        return ranges.reversed()
    }

    /// The leaf ranges whose subtree roots make the consistency proof from the tree of `from`
    /// leaves to the tree of `to` leaves (RFC 9162 PROOF / SUBPROOF), in proof order.
    /// Empty when the sizes are equal.
    /// - Throws: ``MerkleProofError/impossible(_:)`` when `from` is 0 or above `to`.
    public static func consistencyRanges(from: UInt64, to: UInt64) throws(MerkleProofError) -> [Range<UInt64>] {
        guard from > 0 else { throw .impossible("a consistency proof from the empty tree proves nothing") }
        guard from <= to else { throw .impossible("tree size \(from) is above tree size \(to)") }
        var ranges: [Range<UInt64>] = []
        var low: UInt64 = 0, high = to, m = from, complete = true
        while true {
            let n = high - low
            if m == n {
                if !complete { ranges.append(low..<high) }
                break
            }
            let k = MerkleHash.split(n)
            if m <= k {
                ranges.append((low + k)..<high)
                high = low + k
            } else {
                ranges.append(low..<(low + k))
                low += k
                m -= k
                complete = false
            }
        }
        return ranges.reversed()
    }

    /// Checks an inclusion proof (RFC 9162 §2.1.3.2): that the leaf with hash `leafHash` is
    /// at `index` in the tree of `size` leaves whose root is `root`.
    /// - Throws: ``MerkleProofError`` naming what does not hold.
    public static func verifyInclusion(leafHash: [UInt8], index: UInt64, size: UInt64, path: [[UInt8]],
                                       root: [UInt8]) throws(MerkleProofError) {
        guard index < size else { throw .impossible("leaf index \(index) is not below the tree size \(size)") }
        guard leafHash.count == MerkleHash.size, root.count == MerkleHash.size else {
            throw .malformed("a leaf hash and a root are \(MerkleHash.size) bytes")
        }
        let expected = try inclusionRanges(index: index, size: size).count
        guard path.count == expected else {
            throw .malformed("an inclusion proof for leaf \(index) of \(size) has \(expected) hashes, not \(path.count)")
        }
        guard path.allSatisfy({ $0.count == MerkleHash.size }) else {
            throw .malformed("an inclusion proof hash is not \(MerkleHash.size) bytes")
        }
        var fn = index, sn = size - 1
        var hash = leafHash
        for sibling in path {
            if fn & 1 == 1 || fn == sn {
                hash = MerkleHash.node(sibling, hash)
                while fn & 1 == 0 && fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                hash = MerkleHash.node(hash, sibling)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .malformed("the inclusion proof ends below the root") }
        guard hash == root else {
            throw .mismatch("the inclusion proof for leaf \(index) does not lead to the root of the tree of \(size)")
        }
    }

    /// Checks a consistency proof (RFC 9162 §2.1.4.2): that the tree of `from` leaves with root
    /// `fromRoot` is a prefix of the tree of `to` leaves with root `toRoot`.
    /// - Throws: ``MerkleProofError`` naming what does not hold.
    public static func verifyConsistency(from: UInt64, to: UInt64, fromRoot: [UInt8], toRoot: [UInt8],
                                         path: [[UInt8]]) throws(MerkleProofError) {
        guard from > 0 else { throw .impossible("a consistency proof from the empty tree proves nothing") }
        guard from <= to else { throw .impossible("tree size \(from) is above tree size \(to)") }
        if from == to {
            guard path.isEmpty else { throw .malformed("a consistency proof between equal sizes has no hashes") }
            guard fromRoot == toRoot else {
                throw .mismatch("the two roots of the tree of \(from) differ: the log was rewritten")
            }
            return
        }
        let expected = try consistencyRanges(from: from, to: to).count
        guard path.count == expected else {
            throw .malformed("a consistency proof from \(from) to \(to) has \(expected) hashes, not \(path.count)")
        }
        guard path.allSatisfy({ $0.count == MerkleHash.size }) else {
            throw .malformed("a consistency proof hash is not \(MerkleHash.size) bytes")
        }
        var hashes = path
        if from & (from - 1) == 0 { hashes.insert(fromRoot, at: 0) }
        var fn = from - 1, sn = to - 1
        while fn & 1 == 1 {
            fn >>= 1
            sn >>= 1
        }
        var fr = hashes[0], sr = hashes[0]
        for hash in hashes.dropFirst() {
            guard sn != 0 else { throw .malformed("the consistency proof has hashes above the root") }
            if fn & 1 == 1 || fn == sn {
                fr = MerkleHash.node(hash, fr)
                sr = MerkleHash.node(hash, sr)
                while fn & 1 == 0 && fn != 0 {
                    fn >>= 1
                    sn >>= 1
                }
            } else {
                sr = MerkleHash.node(sr, hash)
            }
            fn >>= 1
            sn >>= 1
        }
        guard sn == 0 else { throw .malformed("the consistency proof ends below the root") }
        guard fr == fromRoot else {
            throw .mismatch("the log's first \(from) events do not have the older root: they were rewritten, removed or reordered")
        }
        guard sr == toRoot else {
            throw .mismatch("the consistency proof does not lead to the root of the tree of \(to)")
        }
    }
}
