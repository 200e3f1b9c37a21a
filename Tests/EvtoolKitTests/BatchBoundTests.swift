import EventLog
import Foundation
import TestSupport
import Testing
import Transfer

/// An import's or a migration's batch ends at `batchSize` events or at `maximumBatchBytes` of
/// payloads and metadata, whichever comes first: large events never gather a batch of their
/// count in memory.
@Suite("EvtoolKit: a copy's batch is bounded by its events and by their bytes")
struct BatchBoundTests {
    /// An event with `bytes` bytes of payload (a JSON string) and `{}` as metadata.
    static func event(bytes: Int) -> ProposedEvent {
        ProposedEvent(type: "Noted", data: Data(("\"" + String(repeating: "x", count: bytes - 2) + "\"").utf8), metadata: Data("{}".utf8))
    }

    @Test("the copier commits once the batch's bytes reach the bound, before its count")
    func copierByBytes() throws {
        let (store, _, _, cleanup) = try TestStores.sqliteFile()
        defer { cleanup() }
        var copier = EventCopier(store: store, batchSize: 1_000)
        copier.maximumBatchBytes = 1_000
        // 302 bytes an event (payload and "{}"): the fourth reaches 1,000 and ends the batch.
        for version in 1...3 {
            try copier.add(LogRecord.Imported(stream: "user-ada", version: Int64(version), event: Self.event(bytes: 300)), source: version)
        }
        #expect(try copier.hasPending && copier.appended == 0 && store.headPosition() == 0)
        try copier.add(LogRecord.Imported(stream: "user-ada", version: 4, event: Self.event(bytes: 300)), source: 4)
        #expect(try !copier.hasPending && copier.appended == 4 && store.headPosition() == 4)
        // One event larger than the bound is a batch of its own.
        try copier.add(LogRecord.Imported(stream: "user-ada", version: 5, event: Self.event(bytes: 5_000)), source: 5)
        #expect(!copier.hasPending && copier.appended == 5)
        // Below both bounds nothing is committed until the flush.
        try copier.add(LogRecord.Imported(stream: "user-ada", version: 6, event: Self.event(bytes: 10)), source: 6)
        #expect(try copier.hasPending && store.headPosition() == 5)
        try copier.flush(through: 6)
        #expect(try copier.appended == 6 && store.version(of: "user-ada") == 6)
    }

    @Test("the appender of other producers' events does the same")
    func appenderByBytes() throws {
        let (store, _, _, cleanup) = try TestStores.sqliteFile()
        defer { cleanup() }
        var appender = EventAppender(store: store, batchSize: 1_000)
        appender.maximumBatchBytes = 1_000
        for line in 1...3 {
            try appender.add(ForeignEvent(stream: "user-ada", event: Self.event(bytes: 300), idIsGiven: false), source: line)
        }
        #expect(try appender.hasPending && store.headPosition() == 0)
        try appender.add(ForeignEvent(stream: "user-ada", event: Self.event(bytes: 300), idIsGiven: false), source: 4)
        #expect(try !appender.hasPending && store.headPosition() == 4)
        // The count bound still holds for small events.
        var counted = EventAppender(store: store, batchSize: 2)
        try counted.add(ForeignEvent(stream: "user-bob", event: Self.event(bytes: 10), idIsGiven: false), source: 1)
        #expect(counted.hasPending)
        try counted.add(ForeignEvent(stream: "user-bob", event: Self.event(bytes: 10), idIsGiven: false), source: 2)
        #expect(try !counted.hasPending && store.version(of: "user-bob") == 2)
    }
}
