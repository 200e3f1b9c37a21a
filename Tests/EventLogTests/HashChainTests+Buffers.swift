import EventLog
import Foundation
import Testing

/// The allocation-free chain hashing (``EventChain/Hasher``'s buffer form, ``HexEncoding``) and
/// the stores' appends that use it: byte for byte the one definition.
extension HashChainTests {
    @Test("the buffer form of the hasher gives the vectors, its output written over its input")
    func bufferForm() throws {
        let hasher = EventChain.Hasher()
        var link = EventChain.genesis
        let inputs: [(String, String, String, String, String)] = [
            ("0190f5a8-0000-7000-8000-000000000001", "Searched", "2026-11-30T11:15:21.123456Z", #"{"keyword":"jazz"}"#, "{}"),
            ("0190f5a8-0000-7000-8000-000000000002", "Favorited", "2026-11-30T11:15:22.000001Z", #"{"listingId":"L1"}"#, #"{"by":"app"}"#),
        ]
        var hashes: [String] = []
        for (version, (idText, type, time, data, metadata)) in inputs.enumerated() {
            let id = try #require(UUID(uuidString: idText))
            let fields = ["user-1", type, time, data, metadata].map { Array($0.utf8) }
            let joined = fields.flatMap { $0 }
            var starts = [0]
            for field in fields { starts.append(starts.last! + field.count) }
            joined.withUnsafeBytes { all in
                let part = { (index: Int) in UnsafeRawBufferPointer(rebasing: all[starts[index]..<starts[index + 1]]) }
                link.withUnsafeMutableBytes { raw in
                    hasher.hash(previous: UnsafeRawBufferPointer(raw), stream: part(0), version: Int64(version + 1), id: id,
                                type: part(1), recordedAt: part(2), data: part(3), metadata: part(4), into: raw.baseAddress!)
                }
            }
            hashes.append(link.hexString)
        }
        #expect(hashes == [Self.first, Self.second])
    }

    @Test("the array and buffer forms agree on empty payloads and on fields longer than the hasher's first buffer")
    func longAndEmptyFields() throws {
        let id = try #require(UUID(uuidString: "0190f5a8-0000-7000-8000-0000000000ff"))
        let longType = String(repeating: "T", count: 5_000)
        let longStream = "user-" + String(repeating: "é", count: 1_500)
        let hasher = EventChain.Hasher()
        for (stream, type, data, metadata) in [("user-1", "Searched", "", ""), (longStream, longType, String(repeating: "d", count: 70_000), "{}"),
                                               ("user-2", "Viewed", "{}", "")] {
            let viaArrays = hasher.hash(previous: EventChain.genesis, stream: stream, version: 7, id: id, type: type,
                                        recordedAt: "2026-12-01T00:00:00.000000Z", data: Data(data.utf8), metadata: Data(metadata.utf8))
            // The definition spelled out with the incremental hasher, independently of the buffer layout.
            let spelled = SHA256Hasher()
            spelled.update(EventChain.tag)
            spelled.update(Data(EventChain.genesis))
            spelled.updateField(stream)
            spelled.update(Int64(7))
            spelled.updateField(id.lowercaseString)
            spelled.updateField(type)
            spelled.updateField("2026-12-01T00:00:00.000000Z")
            spelled.updateField(Data(SHA256Hasher.digest(Data(data.utf8))))
            spelled.updateField(Data(SHA256Hasher.digest(Data(metadata.utf8))))
            #expect(viaArrays == spelled.finalize(), "type of \(type.utf8.count) bytes, data of \(data.utf8.count)")
        }
    }

    @Test("hex text of bytes: lowercase, two digits a byte, empty for none")
    func hexText() {
        #expect([UInt8]().hexString == "")
        #expect([0x00, 0x0f, 0xa0, 0xff, 0x5c].hexString == "000fa0ff5c")
        let all = (0...255).map { UInt8($0) }
        #expect(all.hexString == all.map { String(format: "%02x", $0) }.joined())
        #expect([UInt8](hexadecimal: all.hexString) == all)
    }

    @Test("one append mixing kept and current recording times chains every event", arguments: StoreKind.underTest)
    func mixedTimes(kind: StoreKind) throws {
        let subject = try kind.make(); defer { subject.cleanup() }
        let kept = try #require(Timestamp.parse("2026-11-30T11:15:21.123456Z"))
        let events = (0..<5).map { index in
            ProposedEvent(id: UUID(), type: index % 2 == 0 ? "Searched" : "Favorited", data: Data(#"{"n":\#(index)}"#.utf8),
                          metadata: Data(index == 3 ? #"{"long":"\#(String(repeating: "m", count: 3_000))"}"#.utf8 : "{}".utf8), recordedAt: index % 2 == 0 ? kept : nil)
        }
        try subject.store.append(Array(events.prefix(2)), to: "user-1", expectedVersion: .noStream)
        try subject.store.append(Array(events.dropFirst(2)), to: "user-1", expectedVersion: .exactly(2))
        var previous = EventChain.genesis
        let read = try subject.store.read(stream: "user-1")
        #expect(read.count == 5)
        for event in read {
            let expected = EventChain.hash(previous: previous, stream: "user-1", version: event.version, id: event.id, type: event.type,
                                           recordedAt: Timestamp.format(event.recordedAt), data: event.data, metadata: event.metadata)
            #expect(event.hash == expected, "v\(event.version)")
            previous = try #require([UInt8](hexadecimal: event.hash))
        }
        #expect(read.enumerated().filter { $0.offset % 2 == 0 }.allSatisfy { Timestamp.format($0.element.recordedAt) == "2026-11-30T11:15:21.123456Z" })
    }
}
