import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// The kept tree's follower on the connection that appended takes that append's chain hashes
/// from memory (`AppendedChain`): the tree it builds is the log's, whatever comes between.
@Suite("SQLite: the follower takes the connection's last append from memory")
struct SQLiteAppendedChainTests {
    static func event(_ n: Int) -> ProposedEvent {
        ProposedEvent(type: "Searched", data: Data(#"{"keyword":"k\#(n)","n":\#(n)}"#.utf8), metadata: Data(#"{"source":"test"}"#.utf8))
    }

    @Test("appends of every size, another connection's appends, multi-stream appends and failed appends between extensions of every limit: the kept tree checks and has the log's roots")
    func mixedAppendsAndExtensions() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        let other = try SQLiteEventStore(path: path)
        var n = 0
        var sizes: [UInt64] = []
        for round in 0..<40 {
            let count = [1, 3, 16, 17, 40, 2, 250][round % 7]
            switch round % 5 {
            case 0, 1:
                try store.append((0..<count).map { Self.event(n + $0) }, to: "user-\(round % 3)", expectedVersion: .any)
            case 2:
                // Another connection's events come after this one's block.
                try store.append([Self.event(n)], to: "user-\(round % 3)", expectedVersion: .any)
                try other.append((1..<count + 1).map { Self.event(n + $0) }, to: "user-other", expectedVersion: .any)
                n += 1
            case 3:
                try store.append([
                    StreamAppend(stream: "user-a", expectedVersion: .any, events: (0..<count).map { Self.event(n + $0) }),
                    StreamAppend(stream: "user-b", expectedVersion: .any, events: [Self.event(n + count)]),
                ])
                n += 1
                // A failed append keeps nothing (and leaves the block of the last one that committed).
                #expect(throws: EventStoreError.self) {
                    try store.append([Self.event(-1)], to: "user-a", expectedVersion: .exactly(0))
                }
            default:
                // Another connection's append, then this one's: the block follows events the tree lacks.
                try other.append([Self.event(n)], to: "user-other", expectedVersion: .any)
                try store.append((1..<count + 1).map { Self.event(n + $0) }, to: "user-\(round % 3)", expectedVersion: .any)
                n += 1
            }
            n += count
            // Extensions of every size: one leaf, part of the block, all of it and more.
            let limit = [1, 5, 1_000, 7, 10_000, 2][round % 6]
            _ = try store.extendMerkleTree(limit: limit)
            sizes.append(try store.merkleTreeState().size)
            if round % 4 == 3 { try LogTree.extendKept(store) }
        }
        try LogTree.extendKept(store)
        let total = UInt64(try store.readAll(after: 0, limit: 100_000).count)
        #expect(try store.merkleTreeState().size == total)
        #expect(try KeptTreeCheck.verify(store, batchSize: 97) == total)
        for size in Set(sizes + [1, total / 2, total]) where size > 0 {
            #expect(try LogTree.root(of: store, size: size) == LogTree.streamedRoot(of: store, size: size), "size \(size)")
        }
    }

    @Test("the tree holds the chain hashes as appended: a row's hash rewritten in the file between the append and the extension is named by the tree's check")
    func rewriteBetweenAppendAndExtension() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        try store.append((0..<20).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
        try LogTree.extendKept(store)
        try store.append((20..<40).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
        let position = try store.readAll(after: 0, limit: 100)[29].position
        let forged = String(repeating: "ab", count: 32)
        let rewrite = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER events_append_only_update; UPDATE events SET hash = '\(forged)' WHERE position = \(position);"])
        try #require(rewrite.status == 0, "\(rewrite)")
        #expect(try store.extendMerkleTree(limit: 1_000).added == 20)
        #expect(throws: KeptTreeFailure(key: MerkleNodeKey(level: 0, index: 29),
                                        reason: "(position \(position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")) {
            try KeptTreeCheck.verify(store)
        }
    }

    @Test("a block whose first or last row no longer holds its chain hash is not used: the rows are read, as another process would")
    func blockCheckedAgainstFile() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        try store.append((0..<10).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
        let last = try store.readAll(after: 0, limit: 100)[9].position
        let forged = String(repeating: "cd", count: 32)
        let rewrite = try Processes.run(Processes.sqlite3, [path, "DROP TRIGGER events_append_only_update; UPDATE events SET hash = '\(forged)' WHERE position = \(last);"])
        try #require(rewrite.status == 0, "\(rewrite)")
        #expect(try store.extendMerkleTree(limit: 1_000).added == 10)
        // The tree took the file's (rewritten) hash: its leaves match the rows.
        #expect(try KeptTreeCheck.verify(store) == 10)
        let leaf = try store.merkleLeafHashes(from: 9, limit: 1)
        #expect(leaf == [MerkleHash.leaf(try #require([UInt8](hexadecimal: forged)))])
    }
}
