import EventLog
import Foundation
import Testing

/// The kept tree's tiles (schema 7): about one row per 16 events, every level a multiple of 4
/// kept, partial last tiles that only grow.
extension KeptTreeTests {
    /// The tiles a tree of `size` leaves has: ⌈(size >> L) / 16⌉ at each level L = 0, 4, 8 …
    static func expectedTiles(size: UInt64) -> Int {
        var count = 0
        var level: UInt64 = 0
        while size >> level > 0 {
            count += Int(((size >> level) + 15) / 16)
            level += 4
        }
        return count
    }

    @Test("a tree of 4,113 leaves, extended in uneven steps, keeps ⌈n/16⌉ + ⌈n/256⌉ + … tiles (one row per 15 events), checks, and has the log's roots at every tile boundary", arguments: Kind.allCases)
    func tilesPerEvent(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        let store = fixture.store
        var total = 0
        for (count, limit) in [(255, 100), (2, 1), (3_839, 997), (17, 5)] {
            try Self.fill(store, count: count, from: total)
            total += count
            #expect(try Self.extendFully(store, to: UInt64(total), limit: limit) == count)
        }
        #expect(total == 4_113)
        let rows = try fixture.sql("SELECT count(*) FROM \(fixture.table("merkle_tiles"));")
        #expect(rows.output.trimmingCharacters(in: .whitespacesAndNewlines) == String(Self.expectedTiles(size: 4_113)), "\(rows)")
        #expect(Self.expectedTiles(size: 4_113) == 258 + 17 + 1 + 1)
        #expect(try KeptTreeCheck.verify(store, batchSize: 700) == 4_113)
        let leaves = try Self.leafHashes(store)
        for size: UInt64 in [1, 15, 16, 17, 255, 256, 257, 4_095, 4_096, 4_097, 4_112, 4_113] {
            #expect(try LogTree.root(of: store, size: size) == MerkleProofBuilder.build(size: size, leafHashes: leaves).root, "size \(size)")
            let index = size / 2
            let ranges = try MerkleProof.inclusionRanges(index: index, size: size)
            #expect(try LogTree.proof(of: store, size: size, ranges: ranges).proof == MerkleProofBuilder.build(size: size, ranges: ranges, leafHashes: leaves).proof, "size \(size)")
        }
        let events = try store.readAll(after: 0, limit: 4_113)
        for index in [0, 15, 16, 4_095, 4_096, 4_112] {
            #expect(try store.merkleLeafIndex(position: events[index].position) == UInt64(index))
        }
        #expect(try store.merkleLeafIndex(position: events[4_112].position + 1) == nil)
    }

    @Test("the tiles are append-only in the store itself: a tile is not removed, and only grows by appending hashes", arguments: Kind.allCases)
    func tilesAppendOnly(kind: Kind) throws {
        let fixture = try Self.make(kind); defer { fixture.cleanup() }
        try Self.fill(fixture.store, count: 20)
        try Self.extendFully(fixture.store, to: 20)
        let tiles = fixture.table("merkle_tiles")
        let extra = kind == .sqliteFile ? "CAST(hashes || X'\(String(repeating: "00", count: 32))' AS BLOB)" : "hashes || '\\x\(String(repeating: "00", count: 32))'::bytea"
        let shorter = kind == .sqliteFile ? "CAST(substr(hashes, 1, 32) AS BLOB)" : "substring(hashes FROM 1 FOR 32)"
        for statement in [
            "DELETE FROM \(tiles) WHERE level = 0 AND idx = 1;",
            "UPDATE \(tiles) SET hashes = \(shorter) WHERE level = 0 AND idx = 1;",
            "UPDATE \(tiles) SET hashes = \(extra) WHERE level = 0 AND idx = 0;",   // a full tile cannot grow (CHECK)
            "UPDATE \(tiles) SET first_position = first_position + 1 WHERE level = 0 AND idx = 1;",
        ] {
            let result = try fixture.sql(statement)
            #expect(result.status != 0, "allowed: \(statement)")
        }
        #expect(try KeptTreeCheck.verify(fixture.store) == 20)
        // The partial tile grows by the follower's upsert.
        try Self.fill(fixture.store, count: 3, from: 20)
        try Self.extendFully(fixture.store, to: 23)
        #expect(try KeptTreeCheck.verify(fixture.store) == 23)
    }
}
