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
}
