import EventLog
import Foundation
import Testing

/// The follower reads its open tiles as the store keeps them (one run of bytes each, not split
/// into hashes): the same growth as from the tiles, and the same refusals.
extension KeptTreeTests {
    @Test("growth from open tiles kept as runs of bytes equals growth from the tiles, at every size to 300; a run of the wrong length, or a missing tile, is refused")
    func growthFromKeptBytes() throws {
        let entries = (0..<300).map(Self.entry)
        var kept: [MerkleNodeKey: MerkleTile] = [:]
        var size: UInt64 = 0
        while size < 300 {
            let runs = Dictionary(uniqueKeysWithValues: kept.map { key, tile in
                (key, MerkleTileGrowth.KeptTile(hashes: tile.hashes.flatMap { $0 }, firstPosition: tile.firstPosition, lastPosition: tile.lastPosition))
            })
            var fromTiles = try MerkleTileGrowth(size: size, tiles: kept)
            var fromRuns = try MerkleTileGrowth(size: size, kept: runs)
            let step = Int(size % 7) + 1
            for n in Int(size)..<min(Int(size) + step, 300) {
                entries[n].withUnsafeBytes {
                    fromTiles.add(entry: $0.baseAddress!, position: Int64(n + 1))
                    fromRuns.add(entry: $0.baseAddress!, position: Int64(n + 1))
                }
            }
            #expect(fromTiles.tiles == fromRuns.tiles, "from \(size)")
            for tile in fromRuns.tiles { kept[tile.key] = tile }
            size = fromRuns.size
            for key in MerkleTile.openTileKeys(size: size) {
                var others = Dictionary(uniqueKeysWithValues: kept.map { key, tile in
                    (key, MerkleTileGrowth.KeptTile(hashes: tile.hashes.flatMap { $0 }, firstPosition: tile.firstPosition, lastPosition: tile.lastPosition))
                })
                var run = try #require(others[key], "the open tile (\(key.level), \(key.index)) is kept")
                run.hashes.removeLast()
                others[key] = run
                #expect(throws: MerkleProofError.self, "a short run at (\(key.level), \(key.index)), size \(size)") { try MerkleTileGrowth(size: size, kept: others) }
                others[key] = nil
                #expect(throws: MerkleProofError.self, "no tile at (\(key.level), \(key.index)), size \(size)") { try MerkleTileGrowth(size: size, kept: others) }
            }
        }
        // A tile holding a hash of another length is refused through the tiles' form too.
        let open = try #require(MerkleTile.openTileKeys(size: size).first)
        var broken = kept
        let tile = try #require(kept[open])
        broken[open] = MerkleTile(level: tile.level, index: tile.index, hashes: [Array(tile.hashes[0].dropLast())] + tile.hashes.dropFirst(),
                                  firstPosition: tile.firstPosition, lastPosition: tile.lastPosition)
        #expect(throws: MerkleProofError.self) { try MerkleTileGrowth(size: size, tiles: broken) }
    }
}
