import EventLog
import EvtoolKit
import Foundation
import TestSupport
import Testing

/// The library's following loops and their reconnecting policy.
@Suite("EvtoolKit: following the log, riding out a store that went away")
struct FollowingTests {
    @Test("the policy: a lost store is reported once, then its return with the position; any other error is rethrown")
    func policy() throws {
        var policy = Reconnecting()
        var changes: [String] = []
        func note(_ change: Reconnecting.Change) {
            switch change {
            case .lost(let error): changes.append("lost \(error)")
            case .back(_, let position): changes.append("back at \(position)")
            }
        }
        policy.succeeded(from: 1, report: note)
        #expect(changes.isEmpty)
        try policy.failed(EventStoreError.unavailable("server down"), shouldStop: { false }, report: note)
        try policy.failed(EventStoreError.outcomeUnknown("connection dropped"), shouldStop: { false }, report: note)
        #expect(changes.count == 1 && changes[0].hasPrefix("lost "), "\(changes)")
        policy.succeeded(from: 7, report: note)
        #expect(changes.last == "back at 7")
        #expect(throws: EventStoreError.self) {
            try policy.failed(EventStoreError.corrupt("damaged"), shouldStop: { false }, report: note)
        }
        #expect(changes.count == 2)
    }

    @Test("log: without follow, every event after the position in order; with follow, new events too, until asked to stop")
    func followsTheLog() throws {
        let sqlite = try TestStores.sqliteFile(); defer { sqlite.cleanup() }
        for index in 1...3 {
            _ = try sqlite.store.append([ProposedEvent(type: "Noted", data: Data(#"{"n":\#(index)}"#.utf8))], to: "s", expectedVersion: .any)
        }
        var seen: [Int64] = []
        let handed = try Following.log(sqlite.store, after: 1, follow: false, shouldStop: { false },
                                       events: { seen += $0.map(\.position) }, reconnecting: { _ in Issue.record("no store was lost") })
        #expect(handed == 2 && seen == [2, 3])

        // Following: an event appended by another handle while it waits is handed over too.
        let writer = try sqlite.open()
        seen = []
        let until = Date().addingTimeInterval(3)
        var appended = false
        let followed = try Following.log(sqlite.store, after: 0, follow: true,
                                         shouldStop: { Date() >= until || seen.count == 4 },
                                         events: { seen += $0.map(\.position) },
                                         idle: {
                                             guard !appended else { return }
                                             appended = true
                                             _ = try writer.append([ProposedEvent(type: "Noted", data: Data(#"{"n":4}"#.utf8))], to: "s", expectedVersion: .any)
                                         },
                                         reconnecting: { _ in Issue.record("no store was lost") })
        #expect(followed == 4 && seen == [1, 2, 3, 4], "\(seen)")
    }

    /// Appends `count` events to stream "s" of `store`.
    static func note(_ count: Int, to store: any EventStore) throws {
        for index in 1...count {
            _ = try store.append([ProposedEvent(type: "Noted", data: Data(#"{"n":\#(index)}"#.utf8))], to: "s", expectedVersion: .any)
        }
    }

    /// Polls `condition` every 10 ms for at most `seconds`; whether it held.
    static func eventually(within seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let until = Date().addingTimeInterval(seconds)
        while Date() < until {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return try condition()
    }

    @Test("the kept tree's follower extends the tree to the head, then not again until its interval has passed, and stops at once when asked")
    func treeFollowerPaces() throws {
        let sqlite = try TestStores.sqliteFile(); defer { sqlite.cleanup() }
        try Self.note(5, to: sqlite.store)
        let follower = KeptTreeFollower(store: sqlite.store, minimumInterval: .seconds(60)) { Issue.record("no failure expected: \($0)") }
        #expect(try Self.eventually(within: 10) { try sqlite.store.merkleTreeState().size == 5 }, "the follower extended the tree to the head")
        try Self.note(3, to: sqlite.store)
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try sqlite.store.merkleTreeState().size == 5, "within the interval the new events wait for the next extension")
        let asked = Date()
        follower.stop()
        #expect(Date().timeIntervalSince(asked) < 30, "stop ends the pause instead of waiting out its 60 s")

        // Without an interval, the next extension follows the appends.
        let eager = KeptTreeFollower(store: sqlite.store, minimumInterval: .zero) { Issue.record("no failure expected: \($0)") }
        defer { eager.stop() }
        #expect(try Self.eventually(within: 10) { try sqlite.store.merkleTreeState().size == 8 })
        try Self.note(2, to: sqlite.store)
        #expect(try Self.eventually(within: 10) { try sqlite.store.merkleTreeState().size == 10 }, "the events appended meanwhile were taken")
    }
}
