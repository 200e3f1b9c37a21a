import EventLog
import Foundation
import JSONKit
import Projections
import StoreSQLite
import Testing

/// A projector that fails part-way through a batch and is asked again must not apply any
/// event twice, even for a projection whose fold is not idempotent.
@Suite("Projector: retrying after a failure part-way through a batch")
struct RetryTests {
    /// Counts each user's events: applying one twice shows.
    struct CountingProjection: Projection {
        struct Document: ViewDocument {
            var count: Int
            func write(to writer: inout JSONWriter) { writer.beginObject(); writer.key("count"); writer.number(count); writer.endObject() }
            init(count: Int) { self.count = count }
            init(json: JSONObject) throws {
                guard let count = json.integer("count") else { throw ViewDocumentError(reason: "no count") }
                self.count = count
            }
        }
        let name = "counts"
        let version = 1
        let isKeyedByUser = true
        func key(for event: ViewEvent) -> String? { event.userID }
        func evolve(_ document: inout Document?, with event: ViewEvent) { document = Document(count: (document?.count ?? 0) + 1) }
    }

    /// Fails the next lookup of stored documents when told to.
    final class FailingLookupStore: ForwardingViewStore, @unchecked Sendable {
        // @unchecked: only the test thread touches `failNextLookup`.
        struct LookupFailure: Error {}
        var failNextLookup = false
        override func documents(of projection: String, generation: Int, keys: [String]) throws -> [String: Data] {
            if failNextLookup { failNextLookup = false; throw LookupFailure() }
            return try base.documents(of: projection, generation: generation, keys: keys)
        }
    }

    @Test("a failed document lookup after some events were applied: the retry counts every event once")
    func failedLookupThenRetry() throws {
        let fixture = try SQLiteFixture(); defer { fixture.remove() }
        let store = FailingLookupStore(base: fixture.store)
        func append(_ user: String) throws {
            try fixture.store.append(ProposedEvent(type: "Unfavorited", data: Data(#"{"listingID":"L1","schemaVersion":1}"#.utf8)),
                                     to: user, expectedVersion: .any)
        }
        try append("u1")
        try Projector(store: fixture.store, projections: [CountingProjection()]).catchUp()
        // A projector that starts from the stored checkpoint: its cache is empty, so it loads
        // u1's document; then a batch with u1 (cached) before u2 (never seen) fails on u2's lookup.
        let projector = Projector(store: store, projections: [CountingProjection()])
        try append("u1")
        try projector.catchUp()
        try append("u1")
        try append("u2")
        store.failNextLookup = true
        #expect(throws: FailingLookupStore.LookupFailure.self) { try projector.catchUp() }
        try projector.catchUp()
        let counts = try storedView("counts", in: fixture.store).mapValues { try CountingProjection.Document.decode($0).count }
        #expect(counts == ["u1": 3, "u2": 1])
    }
}
