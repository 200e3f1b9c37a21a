import Foundation
import TestSupport
import Testing

/// An event of one of evtool's own types (Searched, Favorited, Unfavorited, DetailsViewed)
/// whose data does not read as that type would stop every command for its user: `append` and
/// import's lines from elsewhere refuse it, naming what is wrong; one that is in the log
/// already (a copy of an older log) is named by stream and position when it is read.
@Suite("Undecodable events of evtool's own types")
struct UndecodableEventTests {
    static let reason = "data is not a Favorited event evtool can read: Favorited event is malformed: listingID is missing"

    @Test("append: a Favorited, Searched, Unfavorited or DetailsViewed that does not decode is refused, exit 65 naming why; no store is made; other types pass")
    func appendRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/a.sqlite"
        let cli = CLI(store: path, directory: directory.path)
        for (type, data, words) in [("Favorited", #"{"junk":1}"#, Self.reason),
                                    ("Unfavorited", "[]", "data is not a Unfavorited event evtool can read"),
                                    ("Searched", #"{"schemaVersion":9}"#, "Searched event has schema version 9, but this evtool reads up to 2"),
                                    ("DetailsViewed", #"{"listingID":"L1"}"#, "data is not a DetailsViewed event evtool can read")] {
            let result = try cli.run("append", "--stream", "ada", "--type", type, "--data", data)
            #expect(result.status == 65, "\(type): \(result)")
            #expect(result.errors.contains(words), "\(type): \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: path), "a refused append makes no store")
        #expect(try cli.run("append", "--stream", "ada", "--type", "Note", "--data", #"{"junk":1}"#).status == 0)
        let favorited = try cli.run("append", "--stream", "ada", "--type", "Favorited", "--data", #"{"listingID":"L1","schemaVersion":1,"summary":{"category":"Music","localDateTime":"2026-12-05 19:30:00","name":"N","venue":"V"}}"#)
        #expect(favorited.status == 0, "\(favorited)")
        let recorded = try cli.run("favorite", "--user", "ada", "--listing", "L2", "--name", "N", "--venue", "V", "--date", "2026-12-05 19:30:00", "--category", "Sports")
        #expect(recorded.status == 0, "the user's commands still work: \(recorded)")
    }

    @Test("import: a plain line or another producer's CloudEvent of evtool's types that does not decode is refused naming the line; nothing of its batch is kept")
    func importRefused() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:" + directory.path + "/a.sqlite", directory: directory.path)
        let plain = try cli.file("plain.jsonl", """
            {"stream":"bob","type":"Note","data":{}}
            {"stream":"ada","type":"Favorited","data":{"junk":1}}
            """)
        var result = try cli.run("import", plain)
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("line 2: stream 'ada': " + Self.reason) && result.errors.contains("nothing from line 1 on was imported"), "\(result)")
        let cloud = try cli.file("cloud.jsonl", """
            {"specversion":"1.0","id":"e1","source":"/crm","type":"Favorited","subject":"ada","data":{"junk":1}}
            """)
        result = try cli.run("import", cloud)
        #expect(result.status == 65 && result.errors.contains("line 1: stream 'ada': " + Self.reason), "\(result)")
        #expect(try cli.run("export").output.isEmpty)
    }

    @Test("an undecodable Favorited already in the log (a copy of evtool's export): the user's commands fail naming its stream, version and position")
    func readingNamesThePlace() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = CLI(store: "sqlite:" + directory.path + "/a.sqlite", directory: directory.path)
        let copy = try cli.file("export.jsonl", """
            {"position":1,"stream":"bob","version":1,"id":"0190f3c0-0000-7000-8000-000000000001","type":"Note","recordedAt":"2026-03-01T10:00:00.000000Z","data":{},"metadata":{}}
            {"position":2,"stream":"ada","version":1,"id":"0190f3c0-0000-7000-8000-000000000002","type":"Favorited","recordedAt":"2026-03-01T10:00:01.000000Z","data":{"junk":1},"metadata":{}}
            """)
        let imported = try cli.run("import", copy)
        #expect(imported.status == 0 && imported.errors.contains("Favorited event is malformed"), "a copy is kept, with a warning: \(imported)")
        let result = try cli.run("favorite", "--user", "ada", "--listing", "L2", "--name", "N", "--venue", "V", "--date", "2026-12-05 19:30:00", "--category", "Sports")
        #expect(result.status == 65, "\(result)")
        #expect(result.errors.contains("the event at position 2 (stream 'ada', version 1) cannot be read: Favorited event is malformed: listingID is missing"), "\(result)")
    }
}
