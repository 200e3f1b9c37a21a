import EventLog
import Foundation
import TestSupport
import Testing

/// The Merkle tree of RFC 9162 §2.1 (``MerkleHash``, ``MerkleFrontier``, ``MerkleProof``,
/// ``MerkleProofBuilder``) against the published transparency-dev/merkle vectors and against an
/// independent implementation in Python's hashlib.
@Suite("Merkle tree")
struct MerkleTests {
    /// The eight leaf inputs of RFC 6962's tests and the roots of their prefixes (sizes 0…8),
    /// as transparency-dev/merkle publishes them (testonly/constants.go).
    static let referenceLeaves = ["", "00", "10", "2021", "3031", "40414243", "5051525354555657",
                                  "606162636465666768696a6b6c6d6e6f"]
    static let referenceRoots = [
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
    ]

    static var referenceLeafHashes: [[UInt8]] {
        referenceLeaves.map { MerkleHash.leaf([UInt8](hexadecimal: $0) ?? []) }
    }

    static let vectorDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("MerkleVectors")

    struct InclusionVector: Decodable {
        var leafIdx: UInt64
        var treeSize: UInt64
        var root: Data
        var leafHash: Data
        var proof: [Data]?
        var desc: String
        var wantErr: Bool
        var file: String
    }

    struct ConsistencyVector: Decodable {
        var size1: UInt64
        var size2: UInt64
        var root1: Data
        var root2: Data
        var proof: [Data]?
        var desc: String
        var wantErr: Bool
        var file: String
    }

    static func load<T: Decodable>(_ name: String, as type: T.Type) throws -> [T] {
        try JSONDecoder().decode([T].self, from: Data(contentsOf: vectorDirectory.appendingPathComponent(name)))
    }

    @Test("the roots of the RFC 6962 reference leaves, by frontier and by builder, for sizes 0…8")
    func referenceRoots() throws {
        var frontier = MerkleFrontier()
        #expect(frontier.root.hexString == Self.referenceRoots[0])
        for size in 1...8 {
            frontier.append(entry: [UInt8](hexadecimal: Self.referenceLeaves[size - 1]) ?? [])
            #expect(frontier.size == UInt64(size))
            #expect(frontier.hashes.count == size.nonzeroBitCount)
            #expect(frontier.root.hexString == Self.referenceRoots[size], "size \(size)")
            let built = try MerkleProofBuilder.build(size: UInt64(size), leafHashes: Self.referenceLeafHashes)
            #expect(built.root.hexString == Self.referenceRoots[size], "size \(size)")
            // A frontier as a store would keep it comes back with the same root.
            let kept = try MerkleFrontier(size: frontier.size, hashes: frontier.hashes)
            #expect(kept.root == frontier.root)
        }
    }

    @Test("a kept frontier with the wrong number or length of hashes is refused")
    func malformedFrontier() {
        let hash = [UInt8](repeating: 7, count: 32)
        #expect(throws: MerkleProofError.self) { try MerkleFrontier(size: 3, hashes: [hash]) }
        #expect(throws: MerkleProofError.self) { try MerkleFrontier(size: 1, hashes: [[1, 2, 3]]) }
        #expect(throws: MerkleProofError.self) { try MerkleFrontier(size: 0, hashes: [hash]) }
    }

    @Test("every published inclusion vector verifies or fails as published; happy paths are the proofs we make")
    func publishedInclusionVectors() throws {
        let vectors = try Self.load("inclusion.json", as: InclusionVector.self)
        #expect(vectors.count > 90)
        var happy = 0
        for vector in vectors {
            let path = (vector.proof ?? []).map { [UInt8]($0) }
            var failure: MerkleProofError?
            do {
                try MerkleProof.verifyInclusion(leafHash: [UInt8](vector.leafHash), index: vector.leafIdx, size: vector.treeSize,
                                                path: path, root: [UInt8](vector.root))
            } catch {
                failure = error
            }
            #expect((failure != nil) == vector.wantErr, "\(vector.file): \(vector.desc): \(failure.map { "\($0)" } ?? "verified")")
            if !vector.wantErr, vector.treeSize <= 8, [UInt8](vector.root) == [UInt8](hexadecimal: Self.referenceRoots[Int(vector.treeSize)]) {
                let ranges = try MerkleProof.inclusionRanges(index: vector.leafIdx, size: vector.treeSize)
                let built = try MerkleProofBuilder.build(size: vector.treeSize, ranges: ranges, leafHashes: Self.referenceLeafHashes)
                #expect(built.proof == path, "\(vector.file)")
                #expect(built.root == [UInt8](vector.root))
                happy += 1
            }
        }
        #expect(happy >= 5)
    }

    @Test("every published consistency vector verifies or fails as published; happy paths are the proofs we make")
    func publishedConsistencyVectors() throws {
        let vectors = try Self.load("consistency.json", as: ConsistencyVector.self)
        #expect(vectors.count > 90)
        var happy = 0
        for vector in vectors {
            let path = (vector.proof ?? []).map { [UInt8]($0) }
            var failure: MerkleProofError?
            do {
                try MerkleProof.verifyConsistency(from: vector.size1, to: vector.size2, fromRoot: [UInt8](vector.root1),
                                                  toRoot: [UInt8](vector.root2), path: path)
            } catch {
                failure = error
            }
            #expect((failure != nil) == vector.wantErr, "\(vector.file): \(vector.desc): \(failure.map { "\($0)" } ?? "verified")")
            if !vector.wantErr, vector.size1 > 0, vector.size2 <= 8,
               [UInt8](vector.root2) == [UInt8](hexadecimal: Self.referenceRoots[Int(vector.size2)]) {
                let ranges = try MerkleProof.consistencyRanges(from: vector.size1, to: vector.size2)
                let built = try MerkleProofBuilder.build(size: vector.size2, ranges: ranges, leafHashes: Self.referenceLeafHashes)
                #expect(built.proof == path, "\(vector.file)")
                happy += 1
            }
        }
        #expect(happy >= 5)
    }

    /// Leaf entries shaped like chain hashes (32 bytes each), the same rule as the Python side.
    static func entry(_ index: Int) -> [UInt8] {
        SHA256Hasher.digest(Data("evtool-merkle-test-\(index)".utf8))
    }

    /// An independent RFC 9162 implementation, straight from the RFC's recursive definitions.
    static let python = #"""
    import hashlib, json, sys

    def h(b): return hashlib.sha256(b).digest()
    request = json.load(open(sys.argv[1]))
    count = request["count"]
    leaves = [h(b"\x00" + h(b"evtool-merkle-test-%d" % i)) for i in range(count)]

    def split(n):
        k = 1
        while k * 2 < n: k *= 2
        return k

    def mth(lo, hi):
        if hi - lo == 0: return h(b"")
        if hi - lo == 1: return leaves[lo]
        k = split(hi - lo)
        return h(b"\x01" + mth(lo, lo + k) + mth(lo + k, hi))

    def path(m, lo, hi):
        if hi - lo == 1: return []
        k = split(hi - lo)
        if m < k: return path(m, lo, lo + k) + [mth(lo + k, hi)]
        return path(m - k, lo + k, hi) + [mth(lo, lo + k)]

    def subproof(m, lo, hi, complete):
        n = hi - lo
        if m == n: return [] if complete else [mth(lo, hi)]
        k = split(n)
        if m <= k: return subproof(m, lo, lo + k, complete) + [mth(lo + k, hi)]
        return subproof(m - k, lo + k, hi, False) + [mth(lo, lo + k)]

    hexes = lambda hashes: [x.hex() for x in hashes]
    json.dump({
        "roots": [mth(0, n).hex() for n in request["roots"]],
        "inclusion": [hexes(path(i, 0, n)) for i, n in request["inclusion"]],
        "consistency": [hexes(subproof(m, 0, n, True)) for m, n in request["consistency"]],
    }, sys.stdout)
    """#

    struct PythonAnswer: Decodable {
        var roots: [String]
        var inclusion: [[String]]
        var consistency: [[String]]
    }

    @Test("roots, inclusion and consistency proofs match Python's hashlib for every size 1…300 and random pairs to 3,000")
    func matchesPython() throws {
        var sizes = Array(1...300)
        var inclusion: [[Int]] = []
        var consistency: [[Int]] = []
        for n in 1...300 {
            for index in Set([0, n / 2, n - 1, (n * 7) / 11]) { inclusion.append([index, n]) }
            for m in Set([1, max(1, n / 2), max(1, n - 1), n, max(1, (n * 5) / 13)]) { consistency.append([m, n]) }
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((seed >> 33) % UInt64(bound))
        }
        for _ in 0..<40 {
            let n = 301 + random(2_700)
            sizes.append(n)
            inclusion.append([random(n), n])
            consistency.append([1 + random(n), n])
        }
        let count = sizes.max() ?? 0
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("merkle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let script = directory.appendingPathComponent("merkle.py"), input = directory.appendingPathComponent("request.json")
        try Data(Self.python.utf8).write(to: script)
        let request: [String: Any] = ["count": count, "roots": sizes, "inclusion": inclusion, "consistency": consistency]
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        let run = try ChildProcess.run(["python3", script.path, input.path])
        try #require(run.status == 0, "python3 failed")
        let answer = try JSONDecoder().decode(PythonAnswer.self, from: Data(run.output.utf8))
        try #require(answer.roots.count == sizes.count && answer.inclusion.count == inclusion.count
                     && answer.consistency.count == consistency.count)

        let leafHashes = (0..<count).map { MerkleHash.leaf(Self.entry($0)) }
        var frontier = MerkleFrontier()
        var frontierRoots: [Int: [UInt8]] = [:]
        for (index, hash) in leafHashes.enumerated() {
            frontier.append(leafHash: hash)
            frontierRoots[index + 1] = frontier.root
        }
        var roots: [Int: [UInt8]] = [:]
        for (size, expected) in zip(sizes, answer.roots) {
            let built = try MerkleProofBuilder.build(size: UInt64(size), leafHashes: leafHashes).root
            #expect(built.hexString == expected, "root of \(size)")
            #expect(frontierRoots[size] == built, "frontier root of \(size)")
            roots[size] = built
        }
        for (pair, expected) in zip(inclusion, answer.inclusion) {
            let (index, size) = (UInt64(pair[0]), UInt64(pair[1]))
            let ranges = try MerkleProof.inclusionRanges(index: index, size: size)
            let built = try MerkleProofBuilder.build(size: size, ranges: ranges, leafHashes: leafHashes)
            #expect(built.proof.map(\.hexString) == expected, "inclusion of \(index) in \(size)")
            try MerkleProof.verifyInclusion(leafHash: leafHashes[Int(index)], index: index, size: size, path: built.proof, root: built.root)
            // Another leaf, a changed hash or another index does not verify.
            #expect(throws: MerkleProofError.self) {
                try MerkleProof.verifyInclusion(leafHash: MerkleHash.leaf([1]), index: index, size: size, path: built.proof, root: built.root)
            }
            if var changed = built.proof.first {
                changed[0] ^= 1
                #expect(throws: MerkleProofError.self) {
                    try MerkleProof.verifyInclusion(leafHash: leafHashes[Int(index)], index: index, size: size,
                                                    path: [changed] + built.proof.dropFirst(), root: built.root)
                }
                #expect(throws: MerkleProofError.self) {
                    try MerkleProof.verifyInclusion(leafHash: leafHashes[Int(index)], index: index ^ 1, size: size,
                                                    path: built.proof, root: built.root)
                }
            }
        }
        for (pair, expected) in zip(consistency, answer.consistency) {
            let (from, to) = (UInt64(pair[0]), UInt64(pair[1]))
            let ranges = try MerkleProof.consistencyRanges(from: from, to: to)
            let built = try MerkleProofBuilder.build(size: to, ranges: ranges, leafHashes: leafHashes)
            #expect(built.proof.map(\.hexString) == expected, "consistency \(from) to \(to)")
            let fromRoot = try MerkleProofBuilder.build(size: from, leafHashes: leafHashes).root
            try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: fromRoot, toRoot: built.root, path: built.proof)
            // A rewritten older tree (another leaf 0) is detected.
            var rewritten = leafHashes
            rewritten[0] = MerkleHash.leaf([0xFF])
            let forgedRoot = try MerkleProofBuilder.build(size: from, leafHashes: rewritten).root
            #expect(throws: MerkleProofError.self) {
                try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: forgedRoot, toRoot: built.root, path: built.proof)
            }
            if var changed = built.proof.last {
                changed[31] ^= 0x80
                #expect(throws: MerkleProofError.self) {
                    try MerkleProof.verifyConsistency(from: from, to: to, fromRoot: fromRoot, toRoot: built.root,
                                                      path: built.proof.dropLast() + [changed])
                }
            }
        }
    }

    @Test("a builder given fewer leaves than the size says so")
    func missingLeaves() {
        #expect(throws: MerkleProofError.missingLeaves(expected: 9, got: 8)) {
            try MerkleProofBuilder.build(size: 9, leafHashes: Self.referenceLeafHashes)
        }
        #expect(throws: MerkleProofError.self) { try MerkleProof.inclusionRanges(index: 8, size: 8) }
        #expect(throws: MerkleProofError.self) { try MerkleProof.consistencyRanges(from: 0, to: 8) }
        #expect(throws: MerkleProofError.self) { try MerkleProof.consistencyRanges(from: 9, to: 8) }
    }
}
