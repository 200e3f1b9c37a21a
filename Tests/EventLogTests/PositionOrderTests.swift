import EventLog
import Foundation
import TestSupport
import Testing

/// The verifier trusts no store to hand its events over in position order: a position read
/// again or lower than the one before fails, naming both, though every hash still chains
/// (positions are not in the hashes). The SQLite file behind this is a page-level edit
/// (evtoolTests' `DamagedFileTests`).
@Suite("verify: positions must rise strictly")
struct PositionOrderTests {
    /// Reads the log with one event's position changed as a damaged index would show it.
    final class RenumberingStore: ForwardingMultiStreamStore, @unchecked Sendable {
        let from: Int64, to: Int64
        init(_ base: any MultiStreamAppending, from: Int64, to: Int64) {
            self.from = from; self.to = to
            super.init(base)
        }
        override func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] {
            try base.readAll(after: position, limit: limit).map { event in
                var event = event
                if event.position == from { event.position = to }
                return event
            }
        }
    }

    static func log() throws -> InMemoryEventStore {
        let store = InMemoryEventStore()
        for index in 1...6 {
            try store.append(ProposedEvent(type: "Note", data: Data(#"{"n":\#(index)}"#.utf8)), to: "s\(index % 2)", expectedVersion: .any)
        }
        return store
    }

    @Test("the untouched log verifies")
    func untouched() throws {
        var verifier = try LogVerifier(store: try Self.log())
        #expect(try verifier.verifyLog(batchSize: 4).events == 6)
    }

    @Test("a position read after a higher one, or read twice, fails as reordered naming both positions, in one batch or across two",
          arguments: [(Int64(3), Int64(5), "position 4 is read after position 5", 2), (3, 5, "position 4 is read after position 5", 1_000),
                      (3, 2, "position 2 is read twice", 2), (4, 6, "position 5 is read after position 6", 1_000)])
    func outOfOrder(renumbered: (from: Int64, to: Int64, words: String, batchSize: Int)) throws {
        let batchSize = renumbered.batchSize
        var verifier = try LogVerifier(store: RenumberingStore(try Self.log(), from: renumbered.from, to: renumbered.to))
        do {
            _ = try verifier.verifyLog(batchSize: batchSize)
            Issue.record("verified a log read out of position order")
        } catch let failure as VerificationFailure {
            #expect(failure.kind == .reordered, "\(failure)")
            #expect(failure.description.contains(renumbered.words), "\(failure)")
        }
    }
}
