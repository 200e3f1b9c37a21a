import Audit
import EventLog
import Foundation
import Synchronization
import Testing
import Transfer

/// A store that lets another writer append to each stream of the first `races` batches just
/// before the batch is appended, as a second importer or an app server would.
private final class RacedStore: MultiStreamAppending {
    let inner: any MultiStreamAppending
    let races: Mutex<Int>

    init(_ inner: any MultiStreamAppending, races: Int) {
        self.inner = inner
        self.races = Mutex(races)
    }

    func append(_ parts: [StreamAppend]) throws -> [AppendResult] {
        let race = races.withLock { left in
            defer { left -= 1 }
            return left > 0
        }
        if race {
            for part in parts {
                _ = try inner.append([ProposedEvent(type: "Other", data: Data("{}".utf8), metadata: Data("{}".utf8))],
                                     to: part.stream, expectedVersion: .any)
            }
        }
        return try inner.append(parts)
    }
    func events(withIDs ids: [UUID]) throws -> [RecordedEvent] { try inner.events(withIDs: ids) }
    func append(_ events: [ProposedEvent], to stream: String, expectedVersion: ExpectedVersion) throws -> AppendResult {
        try inner.append(events, to: stream, expectedVersion: expectedVersion)
    }
    func read(stream: String, from version: Int64, direction: ReadDirection, limit: Int) throws -> [RecordedEvent] {
        try inner.read(stream: stream, from: version, direction: direction, limit: limit)
    }
    func readAll(after position: Int64, limit: Int) throws -> [RecordedEvent] { try inner.readAll(after: position, limit: limit) }
    func scanAll(after position: Int64, limit: Int, _ body: (LentEvent) throws -> Void) throws -> Int {
        try inner.scanAll(after: position, limit: limit, body)
    }
    func headPosition() throws -> Int64 { try inner.headPosition() }
    func version(of stream: String) throws -> Int64 { try inner.version(of: stream) }
    func waitForEvents(after position: Int64, timeout: Duration) throws -> Bool { try inner.waitForEvents(after: position, timeout: timeout) }
}

@Suite("EvtoolKit: an import racing another writer on the same streams")
struct ImportRaceTests {
    @Test("a batch that another writer got to first is compared and appended again, after that writer's events; given ids stay exactly once",
          arguments: ["sqlite", "postgres"])
    func racedBatchesAreRetried(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = RacedStore(try kit.open(), races: 3)
        let text = """
            {"stream":"ada","type":"Noted","data":{"keyword":"jazz"},"id":"order-1"}
            {"stream":"zoe","type":"Noted","data":{"keyword":"rock"}}
            {"stream":"ada","type":"Noted","data":{"keyword":"folk"},"id":"order-2"}
            """
        let outcome = try ForeignImportTests.run(store, text, batchSize: 2)
        #expect(outcome == ForeignImportTests.outcome(.plain, appended: 3, skipped: 0, undecodable: 0, first: nil))
        let ada = try store.read(stream: "ada", from: 1, direction: .forwards, limit: 20)
        #expect(ada.filter { $0.type == "Noted" }.map(\.id) == [ForeignEvent.derivedID("plain", "order-1"), ForeignEvent.derivedID("plain", "order-2")])
        #expect(ada.map(\.version) == Array(1...Int64(ada.count)), "versions without a gap")
        // The first batch (ada, zoe) lost three times: one racing event per stream each time.
        #expect(try store.readAll(after: 0, limit: 100).count == 3 + 6)
        #expect(try store.version(of: "zoe") == 4)
        #expect(try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location).report.events == 9)
    }

    @Test("a writer that keeps winning: the batch fails whole after the retries, naming the stream; nothing of it is kept")
    func endlessRaceFails() throws {
        let kit = try KitStore.make("sqlite"); defer { kit.cleanup() }
        let store = RacedStore(try kit.open(), races: .max)
        let text = #"{"stream":"ada","type":"Noted","data":{"keyword":"jazz"}}"#
        let message = operationError("store") { _ = try ForeignImportTests.run(store, text) }
        #expect(message.contains("stream 'ada'"), "\(message)")
        #expect(try store.read(stream: "ada", from: 1, direction: .forwards, limit: 20).allSatisfy { $0.type == "Other" })
        #expect(try store.readAll(after: 0, limit: 100).count == EventAppender.conflictRetries + 1)
    }
}
