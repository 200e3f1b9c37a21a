import Audit
import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import StoreLocations
import TestSupport
import Testing

/// A server's admin rebuild and forget (``Application/rebuildViews(_:)``,
/// ``Application/forget(user:reason:operatorName:)``) on a store whose oldest events were
/// archived: both fold every view from the first event, and a server has no archive files, so
/// both are refused (they used to rebuild the views from the kept events alone).
@Suite("Admin rebuild and forget on an archived store")
struct ArchivedAdminTests {
    @Test("refused as a conflict naming the command line; no view rebuilt, nothing erased", arguments: ["sqlite", "postgres"])
    func refused(backend: String) throws {
        let kit = try KitStore.make(backend, partitioned: true); defer { kit.cleanup() }
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try kit.location.openForViews(create: true)
        let runner = CommandRunner(store: store)
        for (index, user) in ["ada", "bob", "ada", "cyd", "ada"].enumerated() {
            let search = Searched(keyword: "k\(index)", category: .music, distance: 10, units: .miles,
                                  location: .current(latitude: 34.0224, longitude: -118.2851))
            _ = try runner.handle(.search(search), context: CommandContext(userID: user, source: "test", occurredAt: Date()))
        }
        try Projector(store: store).catchUp()
        _ = try LogArchive.archive(store, location: kit.location, before: 3, to: directory.path + "/a1.jsonl")
        let generations = try store.projectionStatuses().filter(\.isActive).map(\.generation)
        let recent = try Projector(store: store).document(Views.recentSearches, key: "ada")

        let application = Application(store: store)
        for (what, call) in [("rebuild", { _ = try application.rebuildViews() }),
                             ("forget", { _ = try application.forget(user: "ada", reason: "ticket 3", operatorName: "dpo") })] as [(String, () throws -> Void)] {
            do {
                try call()
                Issue.record("\(what) on an archived store was not refused")
            } catch ApplicationError.conflict(let message) {
                #expect(message.hasPrefix("the events below position 3 are archived") && message.contains("'evtool \(what) ")
                        && message.hasSuffix("a server is not given the archive files: run it with the command line"), "\(message)")
            }
        }
        #expect(try store.projectionStatuses().filter(\.isActive).map(\.generation) == generations)
        #expect(try Projector(store: store).document(Views.recentSearches, key: "ada") == recent)
        #expect(try store.read(stream: "ada").allSatisfy { !Erasure.isTombstone($0) })
        #expect(try store.read(stream: Erasure.stream).isEmpty)
    }
}
