import Commands
import EventLog
import Foundation
@testable import Projections
import Simulation
import Testing

/// `History.summary` reads events through the views' fast decoder; its wording must stay the
/// one the domain events themselves give (`evtool history` and the audit report show it).
@Suite("History: wording")
struct HistoryWordingTests {
    @Test("property: for simulated events of every type, the fast wording equals the domain event's", arguments: [1, 2, 3])
    func fastWordingEqualsDomainWording(seed: UInt64) throws {
        var generator = ActivityGenerator(users: 30, listings: 300, seed: seed)
        let store = InMemoryEventStore()
        let runner = CommandRunner(store: store)
        for index in 0..<600 {
            let action = generator.next()
            _ = try runner.handle(action.command, context: CommandContext(userID: action.userID, source: "test", occurredAt: Date(), requestID: "r-\(index)"))
        }
        var types: Set<String> = []
        for recorded in try store.readAll(after: 0, limit: 10_000) {
            let event = try DomainEvent.decode(recorded)
            #expect(History.summary(of: recorded) == History.summary(of: event), "\(recorded.type) at \(recorded.position)")
            types.insert(recorded.type)
        }
        #expect(types == Set(DomainEvent.typeNames), "every event type was tried: \(types)")
    }

    @Test("an unreadable payload is named by its type and size")
    func unreadable() {
        let recorded = RecordedEvent(position: 1, streamID: "ada", version: 1, id: UUID(), type: "Favorited", data: Data(#"{"erased":true}"#.utf8),
                                     metadata: Data("{}".utf8), recordedAt: Date(), hash: "")
        #expect(History.summary(of: recorded) == "Favorited (15 bytes of data)")
    }
}
