import Foundation
import TestSupport
import Testing

/// `Examples/AppBackend`, the README's "Use it as a library" program, run as built: it records,
/// reads and follows through the application library alone, on SQLite and on PostgreSQL.
@Suite("Examples/AppBackend: an app back end on the library")
struct AppBackendExampleTests {
    static let reads = """
        favorite L7: Hamilton at Pantages Theatre
        history 1 Searched: searched "hamilton" in Arts & Theatre within 10 miles near "Los Angeles"
        history 2 Favorited: favorited "Hamilton" (L7)
        history 3 DetailsViewed: viewed details of "Hamilton" (L7)
        log 1 ada@1 Searched
        log 2 ada@2 Favorited
        log 3 ada@3 DetailsViewed
        followed 3 events

        """

    /// Runs the example twice on `store`: the first run records three events, the second
    /// (the same request ids) records nothing again; both read and follow the same log.
    func check(store: String, shown: String) throws {
        let example = Processes.built("AppBackend")
        var result = try Processes.run(example, [store])
        #expect(result.status == 0 && result.errors.isEmpty, "\(result)")
        #expect(result.output == """
            store \(shown)
            recorded Searched for ada, version 1
            recorded Favorited for ada, version 2
            recorded DetailsViewed for ada, version 3

            """ + Self.reads, "\(result)")
        result = try Processes.run(example, [store])
        #expect(result.status == 0 && result.errors.isEmpty, "\(result)")
        #expect(result.output == """
            store \(shown)
            already recorded Searched for ada, version 1
            already recorded Favorited for ada, version 2
            already recorded DetailsViewed for ada, version 3

            """ + Self.reads, "\(result)")
        // The events are the log the command line reads.
        result = try Processes.run(Processes.evtool, ["log", "--store", store])
        #expect(result.status == 0 && result.output.split(separator: "\n").count == 3, "\(result)")
    }

    @Test("on an SQLite file: records a search, a favorite and a details view, reads them back, follows the log")
    func sqlite() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let store = "sqlite:\(directory.path)/app.sqlite"
        try check(store: store, shown: store)
    }

    @Test("on PostgreSQL (EVTOOL_TEST_POSTGRES_URL): the same, in a fresh schema")
    func postgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
        try check(store: store, shown: store)
    }

    @Test("README's \"Use it as a library\" quotes the program as it is, and what it prints on a new SQLite file")
    func readmeQuotesIt() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let source = try String(contentsOf: root.appendingPathComponent("Examples/AppBackend/AppBackend.swift"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## Use it as a library").dropFirst().first)
        let blocks = section.components(separatedBy: "```")
        // blocks[1] is "swift\n…", blocks[3] is "console\n…".
        try #require(blocks.count > 3 && blocks[1].hasPrefix("swift\n") && blocks[3].hasPrefix("console\n"))
        let quoted = String(blocks[1].dropFirst("swift\n".count))
        let lines = source.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("    static func run(store") })
        let end = try #require(lines[start...].firstIndex { $0 == "    }" })
        let function = lines[start...end].map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : $0 }.joined(separator: "\n") + "\n"
        #expect(quoted == function)
        #expect(blocks[3] == """
            console
            $ .build/debug/AppBackend sqlite:/tmp/app.sqlite
            store sqlite:/tmp/app.sqlite
            recorded Searched for ada, version 1
            recorded Favorited for ada, version 2
            recorded DetailsViewed for ada, version 3

            """ + Self.reads)
    }

    @Test("a malformed location: one Error line naming it, exit 1, nothing created")
    func badLocation() throws {
        let result = try Processes.run(Processes.built("AppBackend"), ["mysql://db/app"])
        #expect(result.status == 1 && result.output.isEmpty, "\(result)")
        #expect(result.errors == "Error: unknown store URL scheme in 'mysql://…'; use sqlite:PATH or postgres://\n", "\(result)")
    }
}
