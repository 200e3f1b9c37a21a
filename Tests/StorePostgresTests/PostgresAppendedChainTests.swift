import EventLog
import Foundation
@testable import StorePostgres
import Testing

/// The kept tree's follower on the handle that appended takes its batched appends' chain
/// hashes from the append calls (`append` returns them, schema 13; `PostgresAppendedBlocks`)
/// instead of reading the rows back: the tree it builds is the log's, whatever comes between.
@Suite("PostgreSQL: the follower takes the handle's batched appends from the calls")
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

    /// Forges the chain hash of the event at `index` (0-based, in position order) in the store's
    /// rows, and returns its position.
    static func forge(_ store: PostgresEventStore, schema name: String, index: Int) throws -> Int64 {
        let position = try store.readAll(after: 0, limit: 1_000)[index].position
        try TestDatabase.execute("""
            ALTER TABLE \(name).events DISABLE TRIGGER events_append_only;
            UPDATE \(name).events SET hash = '\(String(repeating: "ef", count: 32))' WHERE position = \(position);
            ALTER TABLE \(name).events ENABLE TRIGGER events_append_only;
            """)
        return position
    }

    @Test("every batched append since the last extension is taken from memory, not only the last: a row rewritten inside an earlier one, not at its ends, is named by the tree's check")
    func earlierAppendsFromMemory() throws {
        try TestDatabase.withStore { store, name in
            for batch in 0..<5 {
                try store.append((0..<10).map { Self.event(batch * 10 + $0) }, to: "user-\(batch % 2)", expectedVersion: .any)
            }
            // Row 15 is inside the second append, and inside the run the five make.
            let position = try Self.forge(store, schema: name, index: 15)
            #expect(try store.extendMerkleTree(limit: 1_000).added == 50)
            #expect(throws: KeptTreeFailure(key: MerkleNodeKey(level: 0, index: 15),
                                            reason: "(position \(position)) is not the leaf of that event's chain hash: the event or the leaf was rewritten")) {
                try KeptTreeCheck.verify(store)
            }
        }
    }

    @Test("a gap between runs (a one-event append, another handle's) is filled from the rows, and the runs after it are taken from memory")
    func gapsFilledFromRowsRunsFromMemory() throws {
        try TestDatabase.withStore { store, name in
            let other = try PostgresEventStore(url: try TestDatabase.url(), schema: name)
            try store.append((0..<10).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
            try store.append([Self.event(10)], to: "user-1", expectedVersion: .any)
            try store.append((11..<21).map { Self.event($0) }, to: "user-2", expectedVersion: .any)
            try other.append((21..<24).map { Self.event($0) }, to: "user-3", expectedVersion: .any)
            try store.append((24..<34).map { Self.event($0) }, to: "user-2", expectedVersion: .any)
            // The one-event append's row and the other handle's are read: their rewrites are
            // taken into the tree. Rows inside the runs after them come from memory.
            _ = try Self.forge(store, schema: name, index: 10)
            _ = try Self.forge(store, schema: name, index: 22)
            let inSecondRun = try Self.forge(store, schema: name, index: 15)
            let inThirdRun = try Self.forge(store, schema: name, index: 30)
            #expect(try store.extendMerkleTree(limit: 1_000).added == 34)
            let failures = try Self.failures(store)
            #expect(failures == [inSecondRun, inThirdRun])
        }
    }

    @Test("once the tree is extended through a handle, its one-event appends return their chain hash too: they join the runs, and their rows are not read")
    func oneEventAppendsJoinOnceTheTreeIsFollowed() throws {
        try TestDatabase.withStore { store, name in
            try store.append((0..<3).map { Self.event($0) }, to: "user-1", expectedVersion: .any)
            try Self.extendFully(store, to: 3)
            for n in 3..<8 { try store.append([Self.event(n)], to: "user-\(n % 2)", expectedVersion: .any) }
            #expect(Self.spans(store) == [4...8])
            let inside = try Self.forge(store, schema: name, index: 5)
            #expect(try store.extendMerkleTree(limit: 1_000).added == 5)
            #expect(try Self.failures(store) == [inside])
        }
    }

    static func spans(_ store: PostgresEventStore) -> [ClosedRange<Int64>] {
        store.appendedChain.withLock { $0.runs.map { $0.first...$0.last } }
    }

    @Test("appends that commit out of order, from threads, are joined into runs: one extension takes them all from memory")
    func concurrentAppendsJoined() throws {
        try TestDatabase.withStore { store, name in
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for batch in 0..<5 {
                    #expect(throws: Never.self) {
                        try store.append((0..<4).map { Self.event(thread * 100 + batch * 4 + $0) }, to: "user-\(thread)", expectedVersion: .any)
                    }
                }
            }
            let rows = try store.readAll(after: 0, limit: 1_000)
            #expect(rows.count == 160)
            let inside = try Self.forge(store, schema: name, index: 81)
            #expect(try store.extendMerkleTree(limit: 1_000).added == 160)
            #expect(try Self.failures(store) == [inside])
            #expect(store.appendedChain.withLock { $0.isEmpty }, "the runs the tree took are forgotten")
        }
    }

    /// The positions of the events whose leaf in the kept tree is not the leaf of the chain
    /// hash their row holds.
    static func failures(_ store: PostgresEventStore) throws -> [Int64] {
        let rows = try store.readAll(after: 0, limit: 100_000)
        let leaves = try store.merkleLeafHashes(from: 0, limit: rows.count)
        try #require(leaves.count == rows.count)
        return try zip(rows, leaves).filter { row, leaf in leaf != MerkleHash.leaf(try #require([UInt8](hexadecimal: row.hash))) }.map(\.0.position)
    }
}

/// The runs a handle keeps of its recent batched appends (`PostgresAppendedBlocks`).
@Suite("PostgreSQL: the handle's appended runs")
struct PostgresAppendedBlocksTests {
    static func block(_ first: Int64, _ count: Int, byte: UInt8 = 1) -> PostgresAppendedChain {
        PostgresAppendedChain(first: first, hashes: (0..<count).flatMap { offset in [UInt8](repeating: byte &+ UInt8(truncatingIfNeeded: offset), count: MerkleHash.size) })
    }

    static func spans(_ blocks: PostgresAppendedBlocks) -> [ClosedRange<Int64>] { blocks.runs.map { $0.first...$0.last } }

    @Test("blocks that come out of order are joined with the runs they touch; a gap keeps runs apart")
    func joinsOutOfOrder() {
        var blocks = PostgresAppendedBlocks()
        blocks.keep(Self.block(21, 5))
        blocks.keep(Self.block(1, 10))
        blocks.keep(Self.block(31, 3))
        #expect(Self.spans(blocks) == [1...10, 21...25, 31...33])
        blocks.keep(Self.block(11, 10, byte: 50))
        #expect(Self.spans(blocks) == [1...25, 31...33])
        blocks.keep(Self.block(26, 5, byte: 90))
        #expect(Self.spans(blocks) == [1...33])
        #expect(blocks.count == 33)
        // The hashes stay in position order.
        let run = blocks.run(following: 10)
        #expect(run?.hex(at: 9) == Self.block(10, 1, byte: 10).hex(at: 0))
        #expect(run?.hex(at: 10) == Self.block(11, 1, byte: 50).hex(at: 0))
        #expect(run?.hex(at: 25) == Self.block(26, 1, byte: 90).hex(at: 0))
        #expect(run?.hex(at: 30) == Self.block(31, 1).hex(at: 0))
    }

    @Test("the run after the tree's last leaf, the gap before the next, and forgetting what the tree has")
    func runsGapsAndForgetting() {
        var blocks = PostgresAppendedBlocks()
        blocks.keep(Self.block(5, 5))
        blocks.keep(Self.block(20, 5))
        #expect(blocks.run(following: 4)?.first == 5)
        #expect(blocks.run(following: 7)?.first == 5)
        #expect(blocks.run(following: 9) == nil, "the tree has the whole run")
        #expect(blocks.run(following: 3) == nil, "position 4 is not held")
        #expect(blocks.gap(after: 3) == 1)
        #expect(blocks.gap(after: 9) == 10)
        #expect(blocks.gap(after: 19) == nil, "the next run follows at once")
        #expect(blocks.gap(after: 24) == nil)
        blocks.forget(through: 9)
        #expect(Self.spans(blocks) == [20...24])
        #expect(blocks.count == 5)
    }

    @Test("at most the capacity is held: the lowest positions go first, a run cut at its front")
    func capacity() {
        var blocks = PostgresAppendedBlocks()
        let capacity = PostgresAppendedChain.capacity
        blocks.keep(Self.block(1, 100))
        blocks.keep(Self.block(1_001, capacity - 150))
        #expect(blocks.count == capacity - 50)
        blocks.keep(Self.block(Int64(1_001 + capacity), 100))
        #expect(blocks.count == capacity)
        #expect(Self.spans(blocks).first == 51...100)
        blocks.keep(Self.block(Int64(1_101 + capacity), 60))
        #expect(blocks.count == capacity)
        #expect(Self.spans(blocks).first == 1_011...Int64(1_001 + capacity - 151))
        #expect(blocks.run(following: 1_010)?.hex(at: 0) == Self.block(1_011, 1, byte: 11).hex(at: 0))
    }

    @Test("a block over positions a run holds (a store emptied and filled again) replaces that run")
    func overlapReplaces() {
        var blocks = PostgresAppendedBlocks()
        blocks.keep(Self.block(1, 10))
        blocks.keep(Self.block(5, 3, byte: 9))
        #expect(Self.spans(blocks) == [5...7])
        #expect(blocks.run(following: 4)?.hex(at: 0) == Self.block(5, 1, byte: 9).hex(at: 0))
    }
}
