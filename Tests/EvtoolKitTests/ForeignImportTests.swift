import Audit
import EventLog
import Foundation
import TestSupport
import Testing
import Transfer

/// Importing events made elsewhere: plain lines and other producers' CloudEvents.
@Suite("EvtoolKit: import of plain lines and CloudEvents from elsewhere")
struct ForeignImportTests {
    static func run(_ store: any MultiStreamAppending, _ text: String, batchSize: Int = 1_000, format: ImportFormat? = nil) throws -> EventImport.Outcome {
        var reader = lines(text)
        return try EventImport(store: store, batchSize: batchSize, format: format).run(&reader)
    }

    /// An outcome, with the events of evtool's types that do not decode (`first`: the first's line and why).
    static func outcome(_ format: ImportFormat, appended: Int, skipped: Int, undecodable: Int, first: String?) -> EventImport.Outcome {
        var outcome = EventImport.Outcome(format: format, appended: appended, skipped: skipped)
        outcome.undecodable = undecodable
        outcome.firstUndecodable = first
        return outcome
    }

    @Test("plain lines: appended in file order at each stream's next version, with new ids; payloads byte for byte", arguments: ["sqlite", "postgres"])
    func plainLines(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        try kit.append("ada", 1, to: store)
        let text = """
            {"stream":"ada","type":"Search","data":{"keyword":"jazz",  "n":1.50}}
            {"stream":"zoe","type":"Favorite","data":{"listingID":"l-1"},"metadata":{"source":"legacy"}}

            {"stream":"ada","type":"Note","data":"just text"}
            """
        let outcome = try Self.run(store, text)
        #expect(outcome == Self.outcome(.plain, appended: 3, skipped: 0, undecodable: 0, first: nil))
        let ada = try store.read(stream: "ada", from: 1, direction: .forwards, limit: 10)
        #expect(ada.map(\.version) == [1, 2, 3] && ada.map(\.type) == ["Noted", "Search", "Note"])
        #expect(ada[1].data == Data(#"{"keyword":"jazz",  "n":1.50}"#.utf8) && ada[1].metadata == Data("{}".utf8))
        #expect(ada[2].data == Data(#""just text""#.utf8))
        let zoe = try store.read(stream: "zoe", from: 1, direction: .forwards, limit: 10)
        #expect(zoe.count == 1 && zoe[0].metadata == Data(#"{"source":"legacy"}"#.utf8))
        #expect(try store.readAll(after: 1, limit: 10).map(\.streamID) == ["ada", "zoe", "ada"], "file order")
        // Without ids, the same lines are new events again.
        #expect(try Self.run(store, text).appended == 3)
        #expect(try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location).report.events == 7)
    }

    @Test("an event of evtool's types that does not decode, in a long file: refused naming its line; the batches before it stay, nothing of its own")
    func undecodableAcrossALongFile() throws {
        let kit = try KitStore.make("sqlite"); defer { kit.cleanup() }
        let store = try kit.open()
        let good = #"{"stream":"ada","type":"Unfavorited","data":{"listingID":"L1","schemaVersion":1}}"#
        let bad = #"{"stream":"ada","type":"Favorited","data":{"listingID":"L1"}}"#
        let lines = (1...3_000).map { [700, 1_400, 2_999].contains($0) ? bad : good }
        let message = operationError("invalid") { _ = try Self.run(store, lines.joined(separator: "\n"), batchSize: 250) }
        #expect(message.hasPrefix("line 700: stream 'ada': data is not a Favorited event evtool can read: Favorited event is malformed: "), "\(message)")
        #expect(message.hasSuffix("(nothing from line 501 on was imported; 500 events were before it)"), "\(message)")
        #expect(try store.headPosition() == 500)
    }

    @Test("plain lines with an id: the same id and content is skipped, the same id with other content refused naming the line; nothing of that batch is written", arguments: ["sqlite", "postgres"])
    func plainIdempotency(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        let uuid = "0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f"
        let text = """
            {"stream":"ada","type":"Noted","data":{"keyword":"jazz"},"id":"\(uuid)"}
            {"stream":"ada","type":"Noted","data":{"keyword":"rock"},"id":"order-17"}
            {"stream":"ada","type":"Noted","data":{"keyword":"rock"},"id":"order-17"}
            """
        #expect(try Self.run(store, text) == Self.outcome(.plain, appended: 2, skipped: 1, undecodable: 0, first: nil))
        let stored = try store.read(stream: "ada", from: 1, direction: .forwards, limit: 10)
        #expect(stored.count == 2 && stored[0].id.uuidString.lowercased() == uuid)
        #expect(stored[1].id == ForeignEvent.derivedID("plain", "order-17"))
        #expect(try Self.run(store, text) == Self.outcome(.plain, appended: 0, skipped: 3, undecodable: 0, first: nil))

        let changed = """
            {"stream":"bob","type":"Noted","data":{"keyword":"new"}}
            {"stream":"ada","type":"Noted","data":{"keyword":"folk"},"id":"order-17"}
            """
        let message = operationError("invalid") { _ = try Self.run(store, changed) }
        #expect(message.hasPrefix("line 2: event \(ForeignEvent.derivedID("plain", "order-17").lowercaseString) (from this line's id) is already in the store with a different data"), "\(message)")
        #expect(message.contains("nothing of lines 1–2 was imported"), "\(message)")
        #expect(try store.headPosition() == 2 && store.version(of: "bob") == 0, "nothing of the refused batch was written")

        let twice = """
            {"stream":"cyd","type":"A","data":{},"id":"x-1"}
            {"stream":"cyd","type":"B","data":{},"id":"x-1"}
            """
        let repeated = operationError("invalid") { _ = try Self.run(store, twice) }
        #expect(repeated.hasPrefix("line 2: the id of this line is also at line 1, with a different type"), "\(repeated)")
        #expect(try store.version(of: "cyd") == 0)
    }

    @Test("a line of another format, or of none, is refused with its number and the member that shows it")
    func mixedAndUnknownLines() throws {
        let kit = try KitStore.make("sqlite"); defer { kit.cleanup() }
        let store = try kit.open()
        let plain = #"{"stream":"ada","type":"A","data":{}}"#
        let cloud = #"{"specversion":"1.0","id":"1","source":"/x","type":"A","subject":"ada","data":{}}"#
        let export = #"{"position":1,"stream":"ada","version":1,"id":"0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f","type":"A","recordedAt":"2026-01-01T00:00:00Z","data":{},"metadata":{}}"#
        let cases: [(String, String)] = [
            (plain + "\n" + cloud, "line 2: 'specversion' makes this line a CloudEvent, in a file of plain event lines (as line 1 is); one format per file"),
            (plain + "\n" + export, "line 2: 'version' makes this line an evtool export line, in a file of plain event lines (as line 1 is); one format per file"),
            (cloud + "\n" + plain, "line 2: 'specversion' is missing: this line is not a CloudEvent, in a file of CloudEvents (as line 1 is); one format per file"),
            (export + "\n" + cloud, "line 2: 'specversion' makes this line a CloudEvent, in a file of evtool export lines (as line 1 is); one format per file"),
            (#"{"kind":"A"}"#, "line 1: not an evtool export line, a plain event line or a CloudEvent: it has no 'version', 'stream' or 'specversion'"),
            (#"{"stream":"ada","type":"A","data":{},"strem":"x"}"#, "line 1: 'strem' is not a member of a plain event line (stream, type, data, metadata and an optional id)"),
            (#"{"stream":"ada","type":"A"}"#, "line 1: 'data' is missing"),
            (#"{"stream":"ada","type":"A","data":{},"metadata":[1]}"#, "line 1: 'metadata' must be a JSON object"),
            (cloud + "\n" + #"{"specversion":"1.0","evtoolversion":1,"id":"1","source":"/x","type":"A","subject":"ada","data":{}}"#,
             "line 2: 'evtoolversion' makes this line evtool's own CloudEvents export, line 1 another producer's; one kind per file"),
        ]
        for (text, expected) in cases {
            // The refused line's batch is not imported, the lines of it before that line neither.
            let fresh = try KitStore.make("sqlite"); defer { fresh.cleanup() }
            let into = try fresh.open()
            let message = operationError("invalid") { _ = try Self.run(into, text) }
            let from = expected.hasPrefix("line 2") ? "line 1" : "this line"
            #expect(message.hasPrefix(expected), "\(message)")
            #expect(message.hasSuffix("(nothing from \(from) on was imported; 0 events were before it)"), "\(message)")
            #expect(try into.headPosition() == 0, "\(expected)")
        }
        // A given format is held to from the first line.
        let given = operationError("invalid") { _ = try Self.run(store, plain, format: .cloudevents) }
        #expect(given.hasPrefix("line 1: 'specversion' is missing"), "\(given)")
    }

    @Test("CloudEvents of another producer: subject is the stream, time the time, source, id and extensions kept in the metadata; imported once", arguments: ["sqlite", "postgres"])
    func foreignCloudEvents(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        let text = """
            {"specversion":"1.0","id":"A-1","source":"https://shop.example/orders","type":"com.example.order.placed","subject":"ada","time":"2026-03-04T05:06:07.5Z","datacontenttype":"application/json","shopregion":"eu","data":{"total":12.5}}
            {"specversion":"1.0","id":"A-1","source":"https://other.example","type":"com.example.order.placed","subject":"ada","data":{"total":3}}
            {"specversion":"1.0","id":"A-2","source":"https://shop.example/orders","type":"com.example.ping","subject":"bob"}
            """
        #expect(try Self.run(store, text) == EventImport.Outcome(format: .cloudevents, appended: 3, skipped: 0))
        let ada = try store.read(stream: "ada", from: 1, direction: .forwards, limit: 10)
        #expect(ada.count == 2, "the same id from two sources is two events")
        #expect(ada[0].type == "com.example.order.placed" && ada[0].data == Data(#"{"total":12.5}"#.utf8))
        #expect(Timestamp.format(ada[0].recordedAt) == "2026-03-04T05:06:07.500000Z")
        #expect(ada[0].metadata == Data(#"{"cloudevents":{"id":"A-1","shopregion":"eu","source":"https://shop.example/orders"}}"#.utf8))
        #expect(ada[0].id == ForeignEvent.derivedID("cloudevents", "https://shop.example/orders\u{0}A-1"))
        let bob = try store.read(stream: "bob", from: 1, direction: .forwards, limit: 10)
        #expect(bob.count == 1 && bob[0].data == Data("null".utf8))
        #expect(try Self.run(store, text).skipped == 3, "importing the same CloudEvents again adds nothing")

        let changed = text.replacingOccurrences(of: #"{"total":3}"#, with: #"{"total":4}"#)
        let message = operationError("invalid") { _ = try Self.run(store, changed) }
        #expect(message.hasPrefix("line 2: event ") && message.contains("different data"), "\(message)")
        #expect(try store.headPosition() == 3)
    }

    @Test("CloudEvents that cannot be imported are refused naming the attribute")
    func refusedCloudEvents() throws {
        let kit = try KitStore.make("sqlite"); defer { kit.cleanup() }
        let store = try kit.open()
        let base = #""id":"1","source":"/x","type":"A","subject":"ada""#
        let cases: [(String, String)] = [
            (#"{"specversion":"0.3",\#(base),"data":{}}"#, "'specversion' must be \"1.0\""),
            (#"{"specversion":"1.0","id":"1","source":"/x","type":"A","data":{}}"#, "'subject' is missing"),
            (#"{"specversion":"1.0","source":"/x","type":"A","subject":"ada"}"#, "'id' is missing"),
            (#"{"specversion":"1.0","id":"1","type":"A","subject":"ada"}"#, "'source' is missing"),
            (#"{"specversion":"1.0",\#(base),"data_base64":"AAEC"}"#, "'data_base64' (binary data) cannot be imported"),
            (#"{"specversion":"1.0",\#(base),"datacontenttype":"text/plain","data":"hi"}"#, "'datacontenttype' is 'text/plain': only JSON data can be imported"),
            (#"{"specversion":"1.0",\#(base),"time":"yesterday","data":{}}"#, "'time' must be an RFC 3339 time"),
            (#"{"specversion":"1.0","id":"1","source":"/x","type":"A","subject":"a\u200Bb","data":{}}"#, "stream id"),
        ]
        for (line, expected) in cases {
            let message = operationError("invalid") { _ = try Self.run(store, line) }
            #expect(message.hasPrefix("line 1: ") && message.contains(expected), "\(message)")
        }
        #expect(try store.headPosition() == 0)
    }
}
