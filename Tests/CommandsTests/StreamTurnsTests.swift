@testable import Commands
import Foundation
import Synchronization
import Testing

/// ``StreamTurns``: one turn per stream at a time, handed on in the order the waiters came,
/// on the thread that ends the turn before; streams do not wait for each other.
struct StreamTurnsTests {
    @Test func turnsAreHandedOnInTheOrderTheyCameAndStreamsDoNotWaitForEachOther() {
        let turns = StreamTurns()
        let order = Mutex<[String]>([])
        #expect(turns.take("user-a") { Issue.record("the first turn is taken at once"); return true })
        #expect(turns.take("user-b") { Issue.record("another stream's turn is free"); return true }, "another stream does not wait")
        for name in ["a1", "a2", "a3"] {
            #expect(!turns.take("user-a") { order.withLock { $0.append(name) }; return true }, "\(name) waits")
        }
        #expect(order.withLock { $0 }.isEmpty, "nothing is handed on before the turn ends")
        turns.end("user-a")
        #expect(order.withLock { $0 } == ["a1"], "ending a turn hands it to the first waiter only")
        turns.end("user-a")
        turns.end("user-a")
        #expect(order.withLock { $0 } == ["a1", "a2", "a3"])
        #expect(turns.streamsInTurn == 2, "a3 and user-b still have their turns")
        turns.end("user-a")
        turns.end("user-b")
        #expect(turns.streamsInTurn == 0, "a stream nobody waits for is forgotten")
    }

    @Test func aWaiterThatGivesItsTurnBackAtOnceHandsItToTheNext() {
        let turns = StreamTurns()
        let called = Mutex<[String]>([])
        #expect(turns.take("user-a") { true })
        #expect(!turns.take("user-a") { called.withLock { $0.append("declines") }; return false })
        #expect(!turns.take("user-a") { called.withLock { $0.append("declines too") }; return false })
        #expect(!turns.take("user-a") { called.withLock { $0.append("keeps") }; return true })
        #expect(!turns.take("user-a") { called.withLock { $0.append("after") }; return true })
        turns.end("user-a")
        #expect(called.withLock { $0 } == ["declines", "declines too", "keeps"])
        turns.end("user-a")
        turns.end("user-a")
        #expect(called.withLock { $0 } == ["declines", "declines too", "keeps", "after"])
        #expect(turns.streamsInTurn == 0)
    }

    @Test func aWaitingThreadHoldsTheTurnUntilItEndsIt() throws {
        let turns = StreamTurns()
        let inside = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let threads = 8, rounds = 200
        for _ in 0..<threads {
            Thread.detachNewThread {
                for _ in 0..<rounds {
                    turns.wait("user-a")
                    let now = inside.add(1, ordering: .acquiringAndReleasing).newValue
                    most.max(now, ordering: .relaxed)
                    inside.subtract(1, ordering: .acquiringAndReleasing)
                    turns.end("user-a")
                }
                done.signal()
            }
        }
        for _ in 0..<threads {
            #expect(done.wait(timeout: .now() + 60) == .success, "every thread got its turns")
        }
        #expect(most.load(ordering: .relaxed) == 1, "never two in one stream's turn")
        #expect(turns.streamsInTurn == 0)
    }
}
