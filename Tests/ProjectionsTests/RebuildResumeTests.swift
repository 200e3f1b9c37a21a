import EventLog
import Foundation
import Projections
import Testing

/// A rebuild commits the generations it builds rarely (each such commit rewrites every document
/// changed since the one before); one stopped through its progress handler keeps its work.
@Suite("Rebuild: stopped part-way, resumed where it stopped")
struct RebuildResumeTests {
    struct Interrupted: Error {}

    @Test("a rebuild stopped through its progress handler commits what it applied; the next one resumes there and ends equal to the fold",
          arguments: ViewStoreKind.underTest)
    func stoppedRebuildKeepsItsWork(kind: ViewStoreKind) throws {
        let fixture = try kind.make(); defer { fixture.remove() }
        try recordActivity(1_200, users: 20, seed: 7, into: fixture.store)
        var batches = 0
        var stoppedAt: Int64 = 0
        // No periodic commit can happen within the test: only the stop commits.
        #expect(throws: Interrupted.self) {
            try Projector(store: fixture.store, batchSize: 40, rebuildCommitInterval: 3_600).rebuild { position, _ in
                batches += 1
                if batches == 5 {
                    stoppedAt = position
                    throw Interrupted()
                }
            }
        }
        #expect(stoppedAt > 0)
        let building = try fixture.store.projectionStatuses().filter { !$0.isActive }
        #expect(Set(building.map(\.name)) == Set(Views.all.map(\.name)))
        #expect(building.allSatisfy { $0.position == stoppedAt }, "\(building.map { "\($0.name) at \($0.position)" }), stopped at \(stoppedAt)")

        // The next rebuild starts after the stop, not from position 0.
        var first: Int64?
        try Projector(store: fixture.store, batchSize: 40, rebuildCommitInterval: 3_600).rebuild { position, _ in
            if first == nil { first = position }
        }
        let resumedAt = try #require(first)
        #expect(resumedAt > stoppedAt && resumedAt <= stoppedAt + 40 * 2, "resumed at \(resumedAt), stopped at \(stoppedAt)")
        for projection in Views.all {
            #expect(try storedView(projection.name, in: fixture.store) == (try foldedView(projection, from: fixture.store)), "view \(projection.name)")
        }
        let head = try fixture.store.headPosition()
        #expect(try fixture.store.projectionStatuses().allSatisfy { $0.isActive && $0.position == head })
    }
}
