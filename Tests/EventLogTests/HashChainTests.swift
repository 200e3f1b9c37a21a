import EventLog
import Foundation
import Testing

/// The hash chain: one definition (``EventChain``), pinned by vectors computed independently
/// (Python's hashlib), and filled in by every store.
@Suite("Hash chain")
struct HashChainTests {
    static let first = "64d10bbba74516a783300ba4450ac0af0a44ee7d36a8eeb1be33841acc0249e2"
    static let second = "c8eaac9e86416a8c4158c3727986f6e13fdc19721fe9fc336a33078f50b24153"

    @Test("the chain definition matches vectors computed outside Swift")
    func vectors() throws {
        let first = EventChain.hash(
            previous: EventChain.genesis, stream: "user-1", version: 1,
            id: try #require(UUID(uuidString: "0190f5a8-0000-7000-8000-000000000001")), type: "Searched",
            recordedAt: "2026-11-30T11:15:21.123456Z", data: Data(#"{"keyword":"jazz"}"#.utf8), metadata: Data("{}".utf8))
        #expect(first == Self.first)
        let second = EventChain.hash(
            previous: try #require([UInt8](hexadecimal: first)), stream: "user-1", version: 2,
            id: try #require(UUID(uuidString: "0190f5a8-0000-7000-8000-000000000002")), type: "Favorited",
            recordedAt: "2026-11-30T11:15:22.000001Z", data: Data(#"{"listingId":"L1"}"#.utf8), metadata: Data(#"{"by":"app"}"#.utf8))
        #expect(second == Self.second)
    }

    @Test("every store chains each stream's events with the one definition", arguments: StoreKind.underTest)
    func storesChain(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        try store.append(Fixtures.events(3), to: "user-1", expectedVersion: .noStream)
        try store.append(Fixtures.events(2), to: "user-2", expectedVersion: .noStream)
        try store.append(Fixtures.events(2), to: "user-1", expectedVersion: .exactly(3))
        for stream in ["user-1", "user-2"] {
            var previous = EventChain.genesis
            for event in try store.read(stream: stream) {
                let expected = EventChain.hash(
                    previous: previous, stream: stream, version: event.version, id: event.id, type: event.type,
                    recordedAt: Timestamp.format(event.recordedAt), data: event.data, metadata: event.metadata)
                #expect(event.hash == expected, "\(stream) v\(event.version)")
                previous = try #require([UInt8](hexadecimal: event.hash))
            }
        }
        let all = try store.readAll(after: 0, limit: 100)
        #expect(all.count == 7)
        #expect(Set(all.map(\.hash)).count == 7)
        #expect(all.allSatisfy { $0.hash.count == 64 && $0.hash == $0.hash.lowercased() })
    }

    @Test("a kept recording time is hashed as kept", arguments: StoreKind.underTest)
    func keptTime(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let id = try #require(UUID(uuidString: "0190f5a8-0000-7000-8000-000000000001"))
        let time = try #require(Timestamp.parse("2026-11-30T11:15:21.123456Z"))
        try subject.store.append(ProposedEvent(id: id, type: "Searched", data: Data(#"{"keyword":"jazz"}"#.utf8), recordedAt: time),
                                 to: "user-1", expectedVersion: .noStream)
        #expect(try subject.store.read(stream: "user-1").first?.hash == Self.first)
    }
}
