import EventLog
import Foundation
import Projections
import Testing

/// The projector says where a rebuild's time went (`Projector.lastPhases`, which
/// `evtool-bench projections` prints): counted per batch, on the thread that did the work.
@Suite("Projector: where a rebuild's time went")
struct CatchUpPhasesTests {
    @Test("a rebuild counts every batch it applied, reads ahead on the reader thread and encodes at its final commit",
          arguments: ViewStoreKind.underTest)
    func rebuildPhases(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(600, users: 12, seed: 3, into: fixture.store)
        let head = try fixture.store.headPosition()
        let projector = Projector(store: fixture.store, batchSize: 50, rebuildCommitInterval: 3_600)
        #expect(projector.lastPhases == CatchUpPhases())
        try projector.rebuild()
        let phases = projector.lastPhases
        // Every batch of the log, and none at the head (the empty one that ends the rebuild).
        #expect(phases.batches == Int((head + 49) / 50), "\(phases.summary)")
        // Past the first batch the reader thread read the rest; the final commit encoded
        // every document of every view.
        #expect(phases.readingAhead > 0 && phases.encoding > 0 && phases.finalCommit > 0, "\(phases.summary)")
        let all = [phases.waitingForBatches, phases.applying, phases.committing, phases.finalCommit, phases.encoding, phases.readingAhead]
        #expect(all.allSatisfy { $0 >= 0 && $0.isFinite }, "\(phases.summary)")

        // A catch-up with nothing to do applies no batch and reads nothing ahead.
        try projector.catchUp()
        #expect(projector.lastPhases.batches == 0 && projector.lastPhases.readingAhead == 0, "\(projector.lastPhases.summary)")
    }
}
