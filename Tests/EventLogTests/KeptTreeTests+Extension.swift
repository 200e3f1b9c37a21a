import EventLog
import Foundation
import Testing

/// The follower's hot path (issue 16's cost): tiles grown in flat buffers, entries hashed in
/// place, chain hashes decoded with a table; and how a chain hash the tree cannot cover is
/// refused, alike on both stores.
extension KeptTreeTests {
    /// 32 bytes of entry `n` (any bytes serve: the growth hashes what it is given).
    static func entry(_ n: Int) -> [UInt8] {
        withUnsafeBytes(of: Int64(n).bigEndian) { SHA256Hasher.digest($0) }
    }

    @Test("tiles grown from entries hashed in place, in uneven extensions from every size, give the tree's leaves, nodes and roots for every size 1…600, and the same tiles as growth from leaf hashes")
    func flatGrowthMatchesTree() throws {
        let entries = (0..<600).map(Self.entry)
        let leaves = entries.map { MerkleHash.leaf($0) }
        var kept: [MerkleNodeKey: MerkleTile] = [:]
        var size: UInt64 = 0
        var steps = [1, 15, 1, 16, 17, 255, 1, 256, 38]
        while size < 600 {
            let step = min(steps.isEmpty ? 600 : steps.removeFirst(), 600 - Int(size))
            var fromEntries = try MerkleTileGrowth(size: size, tiles: kept)
            var fromLeaves = try MerkleTileGrowth(size: size, tiles: kept)
            for n in Int(size)..<(Int(size) + step) {
                entries[n].withUnsafeBytes { fromEntries.add(entry: $0.baseAddress!, position: Int64(10 * n + 3)) }
                fromLeaves.add(leafHash: leaves[n], position: Int64(10 * n + 3))
            }
            #expect(fromEntries.tiles == fromLeaves.tiles, "from \(size) by \(step)")
            #expect(fromEntries.size == size + UInt64(step))
            for tile in fromEntries.tiles {
                kept[tile.key] = tile
            }
            size = fromEntries.size
            // Every tile level holds exactly the tree's nodes of that level so far.
            for (key, tile) in kept where key.level == 0 {
                let first = Int(tile.index) * 16
                #expect(tile.hashes == Array(leaves[first..<min(first + 16, Int(size))]), "leaf tile \(tile.index) at \(size)")
                #expect(tile.firstPosition == Int64(10 * first + 3) && tile.lastPosition == Int64(10 * (first + tile.hashes.count - 1) + 3))
            }
        }
        func node(_ key: MerkleNodeKey) -> [UInt8]? { kept[MerkleTile.tileKey(holding: key)]?.hash(of: key) }
        for end in UInt64(1)...600 {
            let hashes = Dictionary(uniqueKeysWithValues: MerkleNodeKey.parts(of: 0..<end).compactMap { key in node(key).map { (key, $0) } })
            #expect(try MerkleNodeKey.root(of: 0..<end, hashes: hashes) == MerkleProofBuilder.build(size: end, leafHashes: leaves).root, "size \(end)")
        }
        // The level-4 and level-8 tiles hold the roots of the perfect subtrees below them.
        #expect(node(MerkleNodeKey(level: 4, index: 36)) == (try MerkleProofBuilder.build(size: 16, leafHashes: Array(leaves[576..<592])).root))
        #expect(node(MerkleNodeKey(level: 4, index: 37)) == nil)
        #expect(node(MerkleNodeKey(level: 8, index: 1)) == (try MerkleProofBuilder.build(size: 256, leafHashes: Array(leaves[256..<512])).root))
        #expect(node(MerkleNodeKey(level: 9, index: 0)) == (try MerkleProofBuilder.build(size: 512, leafHashes: Array(leaves[0..<512])).root))
    }

    @Test("hex chain hashes decode by table: either case, and any other byte, length or blank refused")
    func hexDecoding() {
        func decode(_ text: String, count: Int = 32) -> [UInt8]? {
            var output = [UInt8](repeating: 0, count: count)
            let ok = Array(text.utf8).withUnsafeBytes { text in output.withUnsafeMutableBytes { HexDecoding.decode(text, into: $0) } }
            return ok ? output : nil
        }
        let hash = Self.entry(7)
        #expect(decode(hash.hexString) == hash)
        #expect(decode(hash.hexString.uppercased()) == hash)
        #expect(decode("00ff10aB", count: 4) == [0x00, 0xFF, 0x10, 0xAB])
        for byte in 0...255 where !"0123456789abcdefABCDEF".utf8.contains(UInt8(byte)) {
            var text = Array(hash.hexString.utf8)
            text[byte % 64] = UInt8(byte)
            var output = [UInt8](repeating: 0, count: 32)
            let ok = text.withUnsafeBytes { text in output.withUnsafeMutableBytes { HexDecoding.decode(text, into: $0) } }
            #expect(!ok, "byte \(byte) accepted")
        }
        for bad in [String(hash.hexString.dropLast()), hash.hexString + "a", "", " " + hash.hexString.dropFirst().dropLast() + " "] {
            #expect(decode(bad) == nil, "\(bad) accepted")
        }
    }

    /// Chain hashes the kept tree cannot cover, each by name: not 64 hex digits.
    static let malformedHashes: [(name: String, hash: String)] = {
        let good = String(repeating: "3c", count: 32)
        return [
            ("63 digits", String(good.dropLast())),
            ("65 digits", good + "a"),
            ("a digit that is not hex", String(good.prefix(10)) + "g" + String(good.dropFirst(11))),
            ("blanks around 62 digits", " " + String(good.dropFirst().dropLast()) + " "),
            ("a non-ASCII letter in 64 bytes", "é" + String(good.dropFirst(2))),
            ("empty", ""),
        ]
    }()

    @Test("an event whose chain hash is not 64 hex digits stops the extension at it: the store's corrupt error names its position, nothing of the extension is kept, and once the hash is put back the tree extends and checks", arguments: Kind.allCases)
    func malformedChainHashNamed(kind: Kind) throws {
        for (name, malformed) in Self.malformedHashes {
            let fixture = try Self.make(kind); defer { fixture.cleanup() }
            try Self.fill(fixture.store, count: 20)
            try Self.extendFully(fixture.store, to: 20)
            try Self.fill(fixture.store, count: 10, from: 20)
            let target = try fixture.store.readAll(after: 0, limit: 30)[24]
            let events = fixture.table("events")
            let unlock = kind == .sqliteFile ? "DROP TRIGGER IF EXISTS events_append_only_update; " : "ALTER TABLE \(events) DISABLE TRIGGER events_append_only; "
            let quoted = malformed.replacingOccurrences(of: "'", with: "''")
            let rewrite = try fixture.sql(unlock + "UPDATE \(events) SET hash = '\(quoted)' WHERE position = \(target.position);")
            try #require(rewrite.status == 0, "\(name): \(rewrite)")
            // Another handle reads the rows, as another process would (the appending handle
            // takes its own appends' hashes from memory, as appended).
            let reader = try fixture.open()
            do {
                let extended = try reader.extendMerkleTree(limit: 1_000)
                Issue.record("\(name): extended to \(extended.state.size)")
            } catch let EventStoreError.corrupt(reason) {
                #expect(reason.contains("the event at position \(target.position) has no valid chain hash"), "\(name): \(reason)")
            } catch {
                Issue.record("\(name): \(error)")
            }
            #expect(try fixture.store.merkleTreeState().size == 20, "\(name)")
            let restore = try fixture.sql(unlock + "UPDATE \(events) SET hash = '\(target.hash)' WHERE position = \(target.position);")
            try #require(restore.status == 0, "\(name): \(restore)")
            #expect(try Self.extendFully(fixture.store, to: 30) == 10, "\(name)")
            #expect(try KeptTreeCheck.verify(fixture.store) == 30, "\(name)")
        }
    }

    @Test("a chain hash in uppercase hex is the same 32 bytes on both stores: the kept tree takes them (verify's chain check is what names the text)", arguments: Kind.allCases)
    func uppercaseChainHashSameLeaf(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        try Self.fill(fixture.store, count: 20)
        let target = try fixture.store.readAll(after: 0, limit: 20)[17]
        let events = fixture.table("events")
        let unlock = kind == .sqliteFile ? "DROP TRIGGER IF EXISTS events_append_only_update; " : "ALTER TABLE \(events) DISABLE TRIGGER events_append_only; "
        let rewrite = try fixture.sql(unlock + "UPDATE \(events) SET hash = '\(target.hash.uppercased())' WHERE position = \(target.position);")
        try #require(rewrite.status == 0, "\(rewrite)")
        #expect(try Self.extendFully(fixture.store, to: 20) == 20)
        #expect(try KeptTreeCheck.verify(fixture.store) == 20)
        #expect(try LogTree.root(of: fixture.store, size: 20) == LogTree.streamedRoot(of: fixture.store, size: 20))
    }
}
