import EventLog
import Foundation
import StorePostgres
import StoreSQLite
import TestSupport
import Testing

/// evtool's own streams (`$erasures` and every id that begins with `$`) take no event but
/// evtool's erasures and copies of an evtool log: not through `append`, an import's plain
/// lines or other producers' CloudEvents, a user id, nor the stores' own append.
@Suite("Reserved streams: only evtool writes `$erasures`")
struct ReservedStreamTests {
    static let forged = #"{"stream":"user-00001","events":3,"throughPosition":10,"reason":"GDPR","by":"dpo"}"#

    /// A store with two users and one erasure: its export holds a real `UserErased` event.
    static func storeWithErasure(_ cli: CLI) throws {
        for (user, keyword) in [("ada", "jazz"), ("bob", "opera"), ("ada", "blues")] {
            let result = try cli.run("search", "--user", user, "--keyword", keyword, "--location", "Chicago")
            try #require(result.status == 0, "\(result)")
        }
        let erased = try cli.run("forget", "--user", "ada", "--reason", "GDPR", "--by", "dpo")
        try #require(erased.status == 0, "\(erased)")
    }

    static func eventCount(_ cli: CLI) throws -> Int {
        let result = try cli.run("export")
        return result.output.split(separator: "\n").count
    }

    @Test("append to '$erasures' or any '$' stream: exit 65 naming the stream, nothing written; verify and the overview show no erasure",
          arguments: [false, true])
    func appendRefused(postgres: Bool) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try TestStores.storeURL(postgres: postgres, in: directory.path, file: "a.sqlite"); defer { store.drop() }
        let cli = CLI(store: store.url, directory: directory.path)
        try #require(try cli.run("search", "--user", "bob", "--keyword", "jazz", "--location", "Chicago").status == 0)
        for stream in ["$erasures", "$seals", "$"] {
            let result = try cli.run("append", "--stream", stream, "--type", "UserErased", "--data", Self.forged)
            #expect(result.status == 65, "\(stream): \(result)")
            #expect(result.errors.contains("stream id '\(stream)' is reserved") && result.errors.contains("'$erasures'"), "\(result)")
        }
        #expect(try Self.eventCount(cli) == 1)
        let verified = try cli.run("verify")
        #expect(verified.status == 0 && verified.output.hasPrefix("OK: 1 event in 1 stream") && !verified.output.contains("erased"), "\(verified)")
        let overview = try cli.run("report", "--store-overview", "--out", directory.path + "/overview.html")
        #expect(overview.status == 0, "\(overview)")
        let html = try String(contentsOfFile: directory.path + "/overview.html", encoding: .utf8)
        #expect(!html.contains("user-00001") && !html.contains("dpo"), "the overview lists no erasure")
    }

    @Test("the stores' own append refuses a reserved stream, alone or in a multi-stream batch: nothing of the batch is kept",
          arguments: [false, true])
    func libraryAppendRefused(postgres: Bool) throws {
        let store: any MultiStreamAppending
        let cleanup: () -> Void
        if postgres {
            let made = try TestStores.postgres(); store = made.store; cleanup = made.cleanup
        } else {
            let made = try TestStores.sqliteFile(); store = made.store; cleanup = made.cleanup
        }
        defer { cleanup() }
        let forged = ProposedEvent(type: "UserErased", data: Data(Self.forged.utf8))
        #expect(throws: EventStoreError.invalidInput("stream id " + AppendValidation.reservedStreamRule("$erasures")!)) {
            try store.append(forged, to: "$erasures", expectedVersion: .any)
        }
        #expect(throws: EventStoreError.self) {
            try store.append([StreamAppend(stream: "ada", expectedVersion: .any, events: [ProposedEvent(type: "Note", data: Data("{}".utf8))]),
                              StreamAppend(stream: "$other", expectedVersion: .any, events: [forged])])
        }
        #expect(throws: EventStoreError.self) {
            try store.append(Erasure.marker(erasureEventID: UUID(), throughVersion: 0), to: "ada", expectedVersion: .any)
        }
        #expect(try store.readAll(after: 0, limit: 10).isEmpty)
    }

    @Test("an erasure's marker (type Erased with its data) in a user's stream: refused by append, a plain line and the stores; the user's favorites stay",
          arguments: [false, true])
    func forgedMarker(postgres: Bool) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = try TestStores.storeURL(postgres: postgres, in: directory.path, file: "a.sqlite"); defer { store.drop() }
        let cli = CLI(store: store.url, directory: directory.path)
        let favorite = try cli.run("favorite", "--user", "ada", "--listing", "L1", "--name", "N", "--venue", "V", "--date", "2026-12-05 19:30:00", "--category", "Sports")
        try #require(favorite.status == 0, "\(favorite)")
        let marker = #"{"erasure":"0190f3c0-0000-7000-8000-000000000001","throughVersion":1}"#
        var result = try cli.run("append", "--stream", "ada", "--type", "Erased", "--data", marker, "--metadata", #"{"x":1}"#)
        #expect(result.status == 65 && result.errors.contains("the event is an erasure's marker (type 'Erased' with its data): only evtool's erasure (forget) appends it"), "\(result)")
        let line = try cli.file("marker.jsonl", #"{"stream":"ada","type":"Erased","data":\#(marker)}"# + "\n")
        result = try cli.run("import", line)
        #expect(result.status == 65 && result.errors.contains("line 1") && result.errors.contains("an erasure's marker"), "\(result)")
        #expect(try cli.run("append", "--stream", "ada", "--type", "Erased", "--data", #"{"note":"not a marker"}"#).status == 0, "the type alone is free")
        #expect(try cli.run("favorites", "--user", "ada").output.contains("L1"))
    }

    @Test("import: a plain line or another producer's CloudEvent into '$erasures' is refused naming the line; nothing of its batch is kept")
    func importRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:" + directory.path + "/a.sqlite", directory: directory.path)
        let plain = try cli.file("plain.jsonl", """
            {"stream":"ada","type":"Note","data":{}}
            {"stream":"$erasures","type":"UserErased","data":\(Self.forged)}
            """)
        var result = try cli.run("import", plain)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("line 2") && result.errors.contains("stream id '$erasures' is reserved"), "\(result)")
        let cloud = try cli.file("cloud.jsonl", """
            {"specversion":"1.0","id":"e1","source":"/crm","type":"UserErased","subject":"$erasures","data":\(Self.forged)}
            """)
        result = try cli.run("import", cloud)
        #expect(result.status == 65 && result.errors.contains("line 1") && result.errors.contains("'$erasures' is reserved"), "\(result)")
        #expect(try Self.eventCount(cli) == 0)
    }

    @Test("a user id that names a reserved stream is refused by every command: exit 65 naming it, nothing recorded")
    func userIDsRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:" + directory.path + "/a.sqlite", directory: directory.path)
        try Self.storeWithErasure(cli)
        let before = try Self.eventCount(cli)
        for arguments in [["search", "--user", "$erasures", "--keyword", "jazz", "--location", "Chicago"],
                          ["favorite", "--user", "$erasures", "--listing", "L1", "--name", "N", "--venue", "V", "--date", "2026-12-05 19:30:00", "--category", "Sports"],
                          ["unfavorite", "--user", "$x", "--listing", "L1"],
                          ["favorites", "--user", "$erasures"], ["history", "--user", "$erasures"],
                          ["forget", "--user", "$erasures", "--reason", "r", "--by", "b"]] {
            let result = try Processes.run(Processes.evtool, arguments + ["--store", cli.store])
            #expect(result.status == 65, "\(arguments): \(result)")
            #expect(result.errors.contains("user id '\(arguments[2])' is reserved"), "\(arguments): \(result)")
        }
        #expect(try Self.eventCount(cli) == before)
        // The erasure is still there and can be verified; the user can still be erased again.
        #expect(try cli.run("verify").status == 0)
    }

    @Test("an import of evtool's own export (JSON Lines and CloudEvents) and a migration still copy the erasure log, and verify",
          arguments: [false, true])
    func copiesKeepErasures(postgres: Bool) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let source = CLI(store: "sqlite:" + directory.path + "/source.sqlite", directory: directory.path)
        try Self.storeWithErasure(source)
        for format in ["jsonl", "cloudevents"] {
            let exported = try source.run("export", "--format", format)
            try #require(exported.status == 0, "\(exported)")
            #expect(exported.output.contains(#""type":"UserErased""#), "\(exported)")
            try exported.output.write(toFile: directory.path + "/log.\(format)", atomically: true, encoding: .utf8)
            let target = try TestStores.storeURL(postgres: postgres, in: directory.path, file: "import-\(format).sqlite"); defer { target.drop() }
            let cli = CLI(store: target.url, directory: directory.path)
            let imported = try cli.run("import", directory.path + "/log.\(format)")
            #expect(imported.status == 0, "\(format): \(imported)")
            let verified = try cli.run("verify")
            #expect(verified.status == 0 && verified.output.hasPrefix("OK: 5 events in 3 streams"), "\(format): \(verified)")
        }
        let target = try TestStores.storeURL(postgres: postgres, in: directory.path, file: "migrated.sqlite"); defer { target.drop() }
        let migrated = try CLI.bare("migrate", "--from", source.store, "--to", target.url)
        #expect(migrated.status == 0, "\(migrated)")
        let verified = try CLI(store: target.url, directory: directory.path).run("verify")
        #expect(verified.status == 0 && verified.output.contains("(2 erased, accepted by their kept digests)"), "\(verified)")
    }

    @Test("an evtool export line of '$erasures' without its hash is refused: only a checked copy writes the erasure log")
    func exportLineWithoutHash() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:" + directory.path + "/a.sqlite", directory: directory.path)
        let line = try cli.file("forged.jsonl", """
            {"position":1,"stream":"$erasures","version":1,"id":"0190f3c0-0000-7000-8000-000000000001","type":"UserErased","recordedAt":"2026-03-01T10:00:00.000000Z","data":\(Self.forged),"metadata":{}}
            """)
        let result = try cli.run("import", line)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("line 1") && result.errors.contains("stream '$erasures' is evtool's own"), "\(result)")
        #expect(try Self.eventCount(cli) == 0)
    }
}
