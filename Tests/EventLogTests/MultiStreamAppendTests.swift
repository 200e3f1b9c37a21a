import EventLog
import Foundation
import Testing

@Suite("Event store conformance: multi-stream appends and kept recording times")
struct MultiStreamAppendTests {
    @Test("a multi-stream append is all or nothing", arguments: StoreKind.underTest)
    func allOrNothing(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = try #require(subject.store as? any MultiStreamAppending)
        try store.append(Fixtures.events(2), to: "b", expectedVersion: .any)
        let results = try store.append([
            StreamAppend(stream: "a", expectedVersion: .noStream, events: Fixtures.events(2)),
            StreamAppend(stream: "b", expectedVersion: .exactly(2), events: Fixtures.events(1)),
            StreamAppend(stream: "a", expectedVersion: .exactly(2), events: Fixtures.events(1)),
        ])
        #expect(results.map(\.streamVersion) == [2, 3, 3])
        #expect(results[0].positions.upperBound < results[1].positions.lowerBound)
        let head = try store.headPosition()
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: "b", expected: .exactly(2), actual: 3)) {
            try store.append([
                StreamAppend(stream: "c", expectedVersion: .noStream, events: Fixtures.events(3)),
                StreamAppend(stream: "b", expectedVersion: .exactly(2), events: Fixtures.events(1)),
            ])
        }
        #expect(try store.headPosition() == head)
        #expect(try store.version(of: "c") == 0)
    }

    @Test("an import can keep the original recording time", arguments: StoreKind.underTest)
    func keptRecordingTime(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let original = Timestamp.date(microseconds: 1_767_225_600_123_456)   // 2026-01-01T00:00:00.123456Z
        var kept = Fixtures.event()
        kept.recordedAt = original
        let before = Timestamp.now()
        try subject.store.append([kept, Fixtures.event()], to: "s", expectedVersion: .any)
        let events = try subject.store.read(stream: "s")
        #expect(events[0].recordedAt == original)
        #expect(events[1].recordedAt >= before)
    }

    @Test("a batch of event ids is looked up in one call: the stored events among them, every field as read", arguments: StoreKind.underTest)
    func eventsWithIDs(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = try #require(subject.store as? any MultiStreamAppending)
        try store.append([
            StreamAppend(stream: "a", expectedVersion: .noStream, events: Fixtures.events(3)),
            StreamAppend(stream: "b", expectedVersion: .noStream, events: Fixtures.events(2)),
        ])
        let all = try store.readAll(after: 0, limit: 10)
        #expect(try store.events(withIDs: []).isEmpty)
        let wanted = [all[4].id, UUID(), all[0].id, all[0].id, all[2].id]
        let found = try store.events(withIDs: wanted).sorted { $0.position < $1.position }
        #expect(found == [all[0], all[2], all[4]])
        #expect(try store.events(withIDs: (0..<2_000).map { _ in UUID() } + [all[1].id]) == [all[1]])
    }
}
