import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// The kept tree's follower on the handle that appended takes that batched append's chain
/// hashes from the append call (`append` returns them, schema 13; `PostgresAppendedChain`)
/// instead of reading the rows back: the tree it builds is the log's, whatever comes between.
@Suite("PostgreSQL: the follower takes the handle's last batched append from the call")
struct PostgresAppendedChainTests {
    static func event(_ n: Int) -> ProposedEvent {
        ProposedEvent(type: "Searched", data: Data(#"{"keyword":"k\#(n)","n":\#(n)}"#.utf8), metadata: Data(#"{"source":"test"}"#.utf8))
    }

    /// Extends until the tree covers `total` leaves (other tests' transactions on the shared
    /// server may hold committed events back a while).
    static func extendFully(_ store: PostgresEventStore, to total: UInt64) throws {
        let deadline = Date().addingTimeInterval(30)
        while try LogTree.extendKept(store)?.size ?? 0 < total, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(try store.merkleTreeState().size == total)
    }

    @Test("batched, one-event, multi-stream and failed appends, another handle's appends and extensions between, extensions of every limit: the kept tree checks and has the log's roots")
    func mixedAppendsAndExtensions() throws {
        try TestDatabase.withStore { store, name in
            let other = try PostgresEventStore(url: try TestDatabase.url(), schema: name)
            var n = 0
            var sizes: [UInt64] = []
            for round in 0..<30 {
                let count = [1, 3, 16, 17, 40, 2, 250][round % 7]
                switch round % 5 {
                case 0, 1:
                    try store.append((0..<count).map { Self.event(n + $0) }, to: "user-\(round % 3)", expectedVersion: .any)
                case 2:
                    // Another handle's events come after this one's block.
                    try store.append([Self.event(n), Self.event(n + 1)], to: "user-\(round % 3)", expectedVersion: .any)
                    try other.append((2..<count + 2).map { Self.event(n + $0) }, to: "user-other", expectedVersion: .any)
                    n += 2
                case 3:
                    try store.append([
                        StreamAppend(stream: "user-a", expectedVersion: .any, events: (0..<count).map { Self.event(n + $0) }),
                        StreamAppend(stream: "user-b", expectedVersion: .any, events: [Self.event(n + count)]),
                    ])
                    n += 1
                    // A failed append keeps nothing (and leaves the block of the last one that committed).
                    #expect(throws: EventStoreError.self) {
                        try store.append([Self.event(-1), Self.event(-2)], to: "user-a", expectedVersion: .exactly(0))
                    }
                default:
                    // Another handle's append, then this one's: the block follows events the tree lacks.
                    try other.append([Self.event(n)], to: "user-other", expectedVersion: .any)
                    try store.append((1..<count + 1).map { Self.event(n + $0) }, to: "user-\(round % 3)", expectedVersion: .any)
                    n += 1
                }
                n += count
                let limit = [1, 5, 1_000, 7, 10_000, 2][round % 6]
                // The other handle extends too, now and then: this handle's next write, built on
                // what it last wrote, finds the tree moved and reads it again.
                if round % 3 == 1 { _ = try other.extendMerkleTree(limit: 3) }
                _ = try store.extendMerkleTree(limit: limit)
                sizes.append(try store.merkleTreeState().size)
                if round % 4 == 3 { try LogTree.extendKept(store) }
            }
            let total = UInt64(try store.readAll(after: 0, limit: 100_000).count)
            try Self.extendFully(store, to: total)
            #expect(try KeptTreeCheck.verify(store, batchSize: 97) == total)
            for size in Set(sizes + [1, total / 2, total]) where size > 0 {
                #expect(try LogTree.root(of: store, size: size) == LogTree.streamedRoot(of: store, size: size), "size \(size)")
            }
        }
    }

    @Test("the tree holds the chain hashes as appended: a row's hash rewritten between the append and the extension is named by the tree's check")
    func rewriteBetweenAppendAndExtension() throws {
        try TestDatabase.withStore { store, name in
            try store.append((0..<20).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
            try Self.extendFully(store, to: 20)
            try store.append((20..<40).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
            let position = try store.readAll(after: 0, limit: 100)[29].position
            let forged = String(repeating: "ab", count: 32)
            try TestDatabase.execute("ALTER TABLE \(name).events DISABLE TRIGGER events_append_only; UPDATE \(name).events SET hash = '\(forged)' WHERE position = \(position);")
            #expect(try store.extendMerkleTree(limit: 1_000).added == 20)
            #expect(throws: KeptTreeFailure(key: MerkleNodeKey(level: 0, index: 29),
                                            reason: "(position \(position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")) {
                try KeptTreeCheck.verify(store)
            }
        }
    }

    @Test("a block whose first or last row no longer holds its chain hash is not used: the rows are read, as another process would", arguments: [0, 9])
    func blockCheckedAgainstStore(end: Int) throws {
        try TestDatabase.withStore { store, name in
            try store.append((0..<10).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
            let position = try store.readAll(after: 0, limit: 100)[end].position
            let forged = String(repeating: "cd", count: 32)
            try TestDatabase.execute("ALTER TABLE \(name).events DISABLE TRIGGER events_append_only; UPDATE \(name).events SET hash = '\(forged)' WHERE position = \(position);")
            try Self.extendFully(store, to: 10)
            // The tree took the store's (rewritten) hash: its leaves match the rows.
            #expect(try KeptTreeCheck.verify(store) == 10)
            let leaf = try store.merkleLeafHashes(from: UInt64(end), limit: 1)
            #expect(leaf == [MerkleHash.leaf(try #require([UInt8](hexadecimal: forged)))])
        }
    }
}
