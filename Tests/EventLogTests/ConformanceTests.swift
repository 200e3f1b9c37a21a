import EventLog
import Foundation
import Simulation
import Testing

/// The behaviour every event store must have. Each test runs, unchanged, against every
/// ``StoreKind``.
@Suite("Event store conformance")
struct ConformanceTests {
    // MARK: - Expected versions

    @Test("expected version: no stream", arguments: StoreKind.underTest)
    func expectNoStream(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let result = try store.append(Fixtures.events(2), to: "user-1", expectedVersion: .noStream)
        #expect(result.streamVersion == 2)
        #expect(result.positions.count == 2)
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-1", expected: .noStream, actual: 2)) {
            try store.append(Fixtures.events(1), to: "user-1", expectedVersion: .noStream)
        }
        #expect(try store.version(of: "user-1") == 2)
    }

    @Test("expected version: stream exists", arguments: StoreKind.underTest)
    func expectStreamExists(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        #expect(throws: EventStoreError.wrongExpectedVersion(stream: "user-1", expected: .streamExists, actual: 0)) {
            try store.append(Fixtures.events(1), to: "user-1", expectedVersion: .streamExists)
        }
        #expect(try store.headPosition() == 0)
        try store.append(Fixtures.events(1), to: "user-1", expectedVersion: .noStream)
        let result = try store.append(Fixtures.events(1), to: "user-1", expectedVersion: .streamExists)
        #expect(result.streamVersion == 2)
    }

    @Test("expected version: exactly N", arguments: StoreKind.underTest)
    func expectExactly(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        #expect(try store.append(Fixtures.events(1), to: "s", expectedVersion: .exactly(0)).streamVersion == 1)
        #expect(try store.append(Fixtures.events(3), to: "s", expectedVersion: .exactly(1)).streamVersion == 4)
        for wrong: Int64 in [0, 1, 3, 5, -1] {
            #expect(throws: EventStoreError.wrongExpectedVersion(stream: "s", expected: .exactly(wrong), actual: 4)) {
                try store.append(Fixtures.events(1), to: "s", expectedVersion: .exactly(wrong))
            }
        }
        #expect(try store.version(of: "s") == 4)
        #expect(try store.append(Fixtures.events(1), to: "s", expectedVersion: .exactly(4)).streamVersion == 5)
    }

    @Test("expected version: any", arguments: StoreKind.underTest)
    func expectAny(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        #expect(try store.append(Fixtures.events(1), to: "s", expectedVersion: .any).streamVersion == 1)
        #expect(try store.append(Fixtures.events(2), to: "s", expectedVersion: .any).streamVersion == 3)
        #expect(try store.version(of: "missing") == 0)
    }

    @Test("the wrong-expected-version error says both versions in words", arguments: StoreKind.underTest)
    func wrongVersionMessage(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        try subject.store.append(Fixtures.events(2), to: "user-7", expectedVersion: .any)
        let error = #expect(throws: EventStoreError.self) {
            try subject.store.append(Fixtures.events(1), to: "user-7", expectedVersion: .exactly(1))
        }
        #expect(error?.description == "stream 'user-7' is at version 2, but the append expected version 1")
    }

    // MARK: - Atomicity and ids

    @Test("a failed batch leaves nothing of itself visible", arguments: StoreKind.underTest)
    func failedBatchIsInvisible(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let existing = Fixtures.event()
        try store.append(existing, to: "a", expectedVersion: .noStream)
        let head = try store.headPosition()

        // A duplicate id in the middle of a batch to another stream.
        var batch = Fixtures.events(5)
        batch[3].id = existing.id
        #expect(throws: EventStoreError.duplicateEventID(existing.id)) {
            try store.append(batch, to: "b", expectedVersion: .any)
        }
        // Malformed JSON in the middle of a batch.
        var malformed = Fixtures.events(5)
        malformed[2].data = Data(#"{"keyword": "#.utf8)
        #expect(throws: EventStoreError.self) { try store.append(malformed, to: "b", expectedVersion: .any) }

        #expect(try store.version(of: "b") == 0)
        #expect(try store.read(stream: "b").isEmpty)
        #expect(try store.headPosition() == head)
        #expect(try store.readAll(after: 0, limit: 100).map(\.id) == [existing.id])
        // The ids of the failed batch are still free to use.
        #expect(try store.append(Array(batch[0..<3]), to: "b", expectedVersion: .noStream).streamVersion == 3)
    }

    @Test("an event id can be appended once, across streams and within a batch", arguments: StoreKind.underTest)
    func duplicateEventIDs(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let event = Fixtures.event()
        try store.append(event, to: "a", expectedVersion: .any)
        #expect(throws: EventStoreError.duplicateEventID(event.id)) { try store.append(event, to: "a", expectedVersion: .any) }
        #expect(throws: EventStoreError.duplicateEventID(event.id)) { try store.append(event, to: "other", expectedVersion: .any) }
        let twin = Fixtures.event()
        #expect(throws: EventStoreError.duplicateEventID(twin.id)) { try store.append([twin, twin], to: "c", expectedVersion: .any) }
        #expect(try store.headPosition() == 1)
    }

    // MARK: - Concurrency

    @Test("writers racing on one expected version: exactly one wins", arguments: StoreKind.underTest)
    func racingWritersOneWins(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        for round in 0..<20 {
            let stream = "race-\(round)"
            let outcomes = Outcomes()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                do {
                    try store.append(Fixtures.events(2), to: stream, expectedVersion: .noStream)
                    outcomes.record("won")
                } catch EventStoreError.wrongExpectedVersion(_, _, let actual) where actual == 2 {
                    outcomes.record("conflict")
                } catch {
                    outcomes.record("unexpected: \(error)")
                }
            }
            #expect(outcomes.counts == ["won": 1, "conflict": 7])
            #expect(try store.read(stream: stream).map(\.version) == [1, 2])
        }
    }

    @Test("writers retrying on conflicts: no event lost, duplicated or out of version order", arguments: StoreKind.underTest)
    func retryingWritersLoseNothing(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let writers = 6, appendsEach = 40
        let outcomes = Outcomes()
        DispatchQueue.concurrentPerform(iterations: writers) { writer in
            for index in 0..<appendsEach {
                let event = Fixtures.event("Favorited", #"{"writer":\#(writer),"index":\#(index)}"#)
                while true {
                    do {
                        let version = try store.version(of: "shared")
                        try store.append(event, to: "shared", expectedVersion: .exactly(version))
                        outcomes.record("appended")
                        break
                    } catch EventStoreError.wrongExpectedVersion {
                        continue
                    } catch {
                        outcomes.record("unexpected: \(error)")
                        return
                    }
                }
            }
        }
        #expect(outcomes.counts == ["appended": writers * appendsEach])
        let events = try store.read(stream: "shared")
        #expect(events.map(\.version) == Array(1...Int64(writers * appendsEach)))
        #expect(Set(events.map(\.id)).count == writers * appendsEach)
        let all = try store.readAll(after: 0, limit: 10_000)
        #expect(all.map(\.position) == all.map(\.position).sorted())
        #expect(all.count == writers * appendsEach)
    }

    // MARK: - Reading streams

    @Test("reading a stream forwards, backwards and past its end", arguments: StoreKind.underTest)
    func readStream(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let appended = Fixtures.events(10)
        try store.append(Array(appended[0..<4]), to: "s", expectedVersion: .noStream)
        try store.append(Fixtures.events(3), to: "other", expectedVersion: .noStream)
        try store.append(Array(appended[4...]), to: "s", expectedVersion: .exactly(4))

        #expect(try store.read(stream: "s", from: 1, direction: .forwards, limit: 100).map(\.id) == appended.map(\.id))
        #expect(try store.read(stream: "s", from: 3, direction: .forwards, limit: 4).map(\.version) == [3, 4, 5, 6])
        #expect(try store.read(stream: "s", from: 0, direction: .forwards, limit: 2).map(\.version) == [1, 2])
        #expect(try store.read(stream: "s", from: 11, direction: .forwards, limit: 5).isEmpty)
        #expect(try store.read(stream: "s", from: 10, direction: .forwards, limit: 5).map(\.version) == [10])
        #expect(try store.read(stream: "s", from: .max, direction: .backwards, limit: 3).map(\.version) == [10, 9, 8])
        #expect(try store.read(stream: "s", from: 4, direction: .backwards, limit: 10).map(\.version) == [4, 3, 2, 1])
        #expect(try store.read(stream: "s", from: 0, direction: .backwards, limit: 10).isEmpty)
        #expect(try store.read(stream: "s", from: 5, direction: .forwards, limit: 0).isEmpty)
        #expect(try store.read(stream: "missing", from: 1, direction: .forwards, limit: 10).isEmpty)
        #expect(try store.read(stream: "missing", from: .max, direction: .backwards, limit: 10).isEmpty)
        let events = try store.read(stream: "s")
        #expect(events.allSatisfy { $0.streamID == "s" })
        #expect(events.map(\.position) == events.map(\.position).sorted())
    }

    // MARK: - Reading the whole log

    @Test("the whole log reads in position order across streams, in any batch size", arguments: StoreKind.underTest)
    func readAllInOrder(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        var generator = SplitMix64(seed: 42)
        var expected: [(stream: String, event: ProposedEvent)] = []
        var versions: [String: Int64] = [:]
        for _ in 0..<120 {
            let stream = "user-\(Int.random(in: 0..<25, using: &generator))"
            let batch = Fixtures.events(Int.random(in: 1...9, using: &generator))
            let result = try store.append(batch, to: stream, expectedVersion: .exactly(versions[stream, default: 0]))
            versions[stream] = result.streamVersion
            expected += batch.map { (stream, $0) }
        }
        #expect(try store.headPosition() == (try store.readAll(after: 0, limit: 100_000).last?.position))
        for batchSize in [1, 7, 64, 1_000] {
            var read: [RecordedEvent] = []
            try store.forEachBatch(after: 0, batchSize: batchSize) { batch in
                #expect(batch.count <= batchSize)
                read += batch
            }
            #expect(read.map(\.id) == expected.map(\.event.id))
            #expect(read.map(\.streamID) == expected.map(\.stream))
            #expect(read.map(\.data) == expected.map(\.event.data))
            #expect(zip(read, read.dropFirst()).allSatisfy { $0.position < $1.position })
            var seen: [String: Int64] = [:]
            for event in read {
                #expect(event.version == seen[event.streamID, default: 0] + 1)
                seen[event.streamID] = event.version
            }
            #expect(seen == versions)
        }
        // Reading after a position in the middle resumes exactly there.
        let all = try store.readAll(after: 0, limit: 100_000)
        let middle = all[all.count / 2].position
        #expect(try store.readAll(after: middle, limit: 100_000).map(\.id) == all.filter { $0.position > middle }.map(\.id))
        #expect(try store.readAll(after: try store.headPosition(), limit: 10).isEmpty)
    }

    @Test("scanning lends exactly what readAll returns: positions, streams, types, times and payload bytes", arguments: StoreKind.underTest)
    func scanAllLendsWhatReadAllReads(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        var generator = SplitMix64(seed: 7)
        for index in 0..<60 {
            let batch = (0..<Int.random(in: 1...5, using: &generator)).map { item in
                Fixtures.event(["Searched", "Favorited", "DetailsViewed"][item % 3], #"{"n":\#(index),"text":"caf\u00e9 🎷 \#(item)"}"#)
            }
            try store.append(batch, to: "user-\(index % 7)", expectedVersion: .any)
        }
        let all = try store.readAll(after: 0, limit: 10_000)
        for limit in [1, 5, 64, 10_000] {
            var lent: [(position: Int64, stream: String, type: String, recordedAt: Date, data: Data)] = []
            var after: Int64 = 0
            while true {
                let count = try store.scanAll(after: after, limit: limit) { event in
                    lent.append((event.position, event.streamID, event.type, event.recordedAt, Data(event.data)))
                }
                #expect(count <= limit)
                guard count > 0 else { break }
                after = lent.last!.position
            }
            #expect(lent.map(\.position) == all.map(\.position))
            #expect(lent.map(\.stream) == all.map(\.streamID))
            #expect(lent.map(\.type) == all.map(\.type))
            #expect(lent.map(\.recordedAt) == all.map(\.recordedAt))
            #expect(lent.map(\.data) == all.map(\.data))
        }
        #expect(try store.scanAll(after: try store.headPosition(), limit: 10) { _ in Issue.record("lent an event past the head") } == 0)
    }

    @Test("append results name the positions the events got", arguments: StoreKind.underTest)
    func appendResultPositions(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let first = try store.append(Fixtures.events(3), to: "a", expectedVersion: .any)
        let second = try store.append(Fixtures.events(2), to: "b", expectedVersion: .any)
        #expect(first.positions.count == 3 && second.positions.count == 2)
        #expect(first.positions.upperBound < second.positions.lowerBound)
        let all = try store.readAll(after: 0, limit: 10)
        #expect(all.map(\.position) == Array(first.positions) + Array(second.positions))
        #expect(try store.headPosition() == second.positions.upperBound)
    }

    // MARK: - Payloads

    @Test("payloads come back byte for byte: 1 MB, emoji, RTL, NUL escapes, odd spacing", arguments: StoreKind.underTest)
    func payloadsRoundTrip(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let large = #"{"blob":""# + String(repeating: "ab€🎵", count: 1_048_576 / 9) + #""}"#
        let payloads = [
            large,
            #"{"name":"Taylor Swift 🎤🎸 — Eras","venue":"Estadio 🇲🇽"}"#,
            #"{"name":"מופע ג'אז בתל אביב","note":"عرض موسيقي"}"#,
            #"{"nul":"before\u0000after","quote":"\"","backslash":"\\"}"#,
            "  {\n  \"b\" : 2 ,\t\"a\":[1, 2.50, -3e2, true, null]\n}  ",
            #""just a string""#,
            "[]",
        ]
        let events = payloads.map { Fixtures.event("DetailsViewed", $0) }
        var metadataEvent = Fixtures.event()
        metadataEvent.metadata = Data(#"{"source":"app-server-🇯🇵","request":"'; DROP TABLE events; --"}"#.utf8)
        try store.append(events + [metadataEvent], to: "user-💡", expectedVersion: .noStream)
        let read = try store.read(stream: "user-💡")
        #expect(read.map(\.data) == events.map(\.data) + [metadataEvent.data])
        #expect(read.last?.metadata == metadataEvent.metadata)
        #expect(read.first?.data.count == large.utf8.count)
        #expect(try store.readAll(after: 0, limit: 100).map(\.data) == read.map(\.data))
    }

    @Test("stream ids with quotes and SQL metacharacters are just names", arguments: StoreKind.underTest)
    func hostileStreamIDs(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        let names = ["o'brien", #"say "hi""#, "'; DROP TABLE events; --", "a%b_c", #"back\slash"#, "semi;colon",
                     "a$1", "?1", "user 🎉", String(repeating: "x", count: AppendValidation.maximumStreamIDLength)]
        for (index, name) in names.enumerated() {
            let result = try store.append(Fixtures.events(index + 1), to: name, expectedVersion: .noStream)
            #expect(result.streamVersion == Int64(index + 1))
        }
        for (index, name) in names.enumerated() {
            #expect(try store.version(of: name) == Int64(index + 1))
            #expect(try store.read(stream: name).allSatisfy { $0.streamID == name })
        }
        #expect(try store.version(of: "a_b%c") == 0)
        #expect(try store.read(stream: "o'brien%").isEmpty)
    }

    @Test("metadata and recording time are kept", arguments: StoreKind.underTest)
    func metadataAndTime(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let before = Timestamp.now()
        let event = Fixtures.event()
        try subject.store.append(event, to: "s", expectedVersion: .any)
        let after = Date()
        let read = try #require(try subject.store.read(stream: "s").first)
        #expect(read.metadata == event.metadata)
        #expect(read.type == event.type)
        #expect(read.recordedAt >= before && read.recordedAt <= after)
        #expect(Timestamp.microseconds(read.recordedAt) == Timestamp.microseconds(Timestamp.date(microseconds: Timestamp.microseconds(read.recordedAt))))
    }

    // MARK: - Refused input

    @Test("bad input is refused with a message that names it", arguments: StoreKind.underTest)
    func refusedInput(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let store = subject.store
        func message(_ body: () throws -> Void) -> String? {
            do { try body(); return nil } catch let error as EventStoreError {
                guard case .invalidInput(let text) = error else { return "wrong error: \(error)" }
                return text
            } catch { return "wrong error: \(error)" }
        }
        #expect(message { try store.append([], to: "s", expectedVersion: .any) } == "an append needs at least one event (the batch is empty)")
        #expect(message { try store.append(Fixtures.event(), to: "", expectedVersion: .any) } == "stream id is empty")
        #expect(message { try store.append(Fixtures.event(), to: "a\u{7}b", expectedVersion: .any) } == "stream id contains a control character")
        #expect(message { try store.append(Fixtures.event(), to: String(repeating: "x", count: 513), expectedVersion: .any) }
            == "stream id is 513 bytes long; the limit is 512")
        #expect(message { try store.append(Fixtures.event("", "{}"), to: "s", expectedVersion: .any) } == "type of the event is empty")
        #expect(message { try store.append(Fixtures.event("T\u{202E}", "{}"), to: "s", expectedVersion: .any) }?
            .hasPrefix("type of the event must not contain U+202E (RIGHT-TO-LEFT OVERRIDE): types refuse invisible characters") == true)
        #expect(message { try store.append(Fixtures.event("T", "{bad}"), to: "s", expectedVersion: .any) }
            == "data of the event is not valid JSON: expected a member name at offset 1")
        #expect(message { try store.append(Fixtures.events(2) + [Fixtures.event("T", "")], to: "s", expectedVersion: .any) }
            == "data of event 3 of 3 is not valid JSON: it is empty")
        var badMetadata = Fixtures.event()
        badMetadata.metadata = Data([0x7B, 0xFF, 0x7D])
        #expect(message { try store.append(badMetadata, to: "s", expectedVersion: .any) } != nil)
        #expect(message { _ = try store.read(stream: "", from: 1, direction: .forwards, limit: 1) } == "stream id is empty")
        #expect(try store.headPosition() == 0)
        #expect(message { try store.append(Fixtures.event("Vu\u{E9}", "{}"), to: "s", expectedVersion: .any) } == nil, "a visible character beyond ASCII is fine")
    }
}

/// Counts outcomes reported from several threads.
final class Outcomes: @unchecked Sendable {
    // @unchecked: every access to `storage` holds `lock`.
    private let lock = NSLock()
    private var storage: [String: Int] = [:]

    func record(_ outcome: String) { lock.withLock { storage[outcome, default: 0] += 1 } }
    var counts: [String: Int] { lock.withLock { storage } }
}
