import Foundation
import TestSupport
import Testing

/// The recently-viewed list through the CLI, on each store: every view is recorded, and the
/// view shows each listing once, the latest view on top, twenty at most.
@Suite("evtool: recently viewed keeps each listing once")
struct RecentlyViewedTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case sqlite, postgres
        var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
    }

    static func details(_ listing: String, name: String) -> String {
        #"{"listingID":"\#(listing)","info":{"name":"\#(name)","artistsOrTeams":[],"venue":"Hall","category":"Music","genres":[]},"upcomingEvents":[]}"#
    }

    /// The listing ids and names `viewed --json` shows, in order.
    static func shown(_ cli: CLI, user: String) throws -> [(listing: String, name: String)] {
        let result = try cli.run("viewed", "--user", user, "--json")
        try #require(result.status == 0, "\(result)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any], "\(result)")
        let items = try #require(document["items"] as? [[String: Any]], "\(result)")
        return items.map { ($0["listingID"] as? String ?? "?", $0["name"] as? String ?? "?") }
    }

    @Test("re-viewing moves a listing to the top with the name last seen; never two entries; twenty kept; a rebuild agrees", arguments: Kind.allCases)
    func reViews(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli: CLI
        var drop: () -> Void = {}
        switch kind {
        case .sqlite: cli = CLI(store: "sqlite:\(directory.path)/viewed.sqlite", directory: directory.path)
        case .postgres:
            let postgres = try TestStores.freshPostgresStore()
            cli = CLI(store: postgres.url, directory: directory.path)
            drop = postgres.drop
        }
        defer { drop() }
        func view(_ listing: String, name: String) throws {
            let result = try cli.run("view", "--user", "ada", "--listing", listing, "--details", "-", input: Self.details(listing, name: name))
            #expect(result.status == 0 && result.output.hasPrefix("recorded DetailsViewed for ada"), "\(result)")
        }
        for listing in ["L1", "L2", "L3"] { try view(listing, name: "Show \(listing)") }
        try view("L1", name: "Show L1, renamed")
        try view("L2", name: "Show L2")
        var shown = try Self.shown(cli, user: "ada")
        #expect(shown.map(\.listing) == ["L2", "L1", "L3"])
        #expect(shown.map(\.name) == ["Show L2", "Show L1, renamed", "Show L3"])
        // Fill past the cap, then re-view the oldest still shown: it comes back on top, once,
        // and the list stays at twenty.
        for index in 10..<30 { try view("L\(index)", name: "Show L\(index)") }
        shown = try Self.shown(cli, user: "ada")
        #expect(shown.map(\.listing) == (10..<30).reversed().map { "L\($0)" })
        try view("L10", name: "Show L10")
        shown = try Self.shown(cli, user: "ada")
        #expect(shown.map(\.listing) == ["L10"] + (11..<30).reversed().map { "L\($0)" })
        // Every view was recorded (the rule is the view's, not the log's), and a rebuild from
        // the log shows the same list.
        let history = try cli.run("history", "--user", "ada", "--type", "DetailsViewed", "--json")
        #expect(history.output.split(separator: "\n").count == 26, "\(history)")
        let rebuild = try cli.run("rebuild", "recently-viewed")
        #expect(rebuild.status == 0, "\(rebuild)")
        #expect(try Self.shown(cli, user: "ada").map(\.listing) == shown.map(\.listing))
    }

    @Test("view --details takes the details object or the DetailsViewed payload, lists left out are empty, and the stored bytes still write them", arguments: Kind.allCases)
    func detailsInBothForms(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli: CLI
        var drop: () -> Void = {}
        switch kind {
        case .sqlite: cli = CLI(store: "sqlite:\(directory.path)/forms.sqlite", directory: directory.path)
        case .postgres:
            let postgres = try TestStores.freshPostgresStore()
            cli = CLI(store: postgres.url, directory: directory.path)
            drop = postgres.drop
        }
        defer { drop() }
        func view(_ listing: String, _ details: String) throws -> Processes.Result {
            try cli.run("view", "--user", "ada", "--listing", listing, "--details", "-", input: details)
        }
        let bare = try view("L1", #"{"listingID":"L1","info":{"name":"Hamilton","venue":"Pantages Theatre"}}"#)
        #expect(bare.status == 0 && bare.output.hasPrefix("recorded DetailsViewed for ada"), "\(bare)")
        let wrapped = try view("L2", #"{"details":{"listingID":"L2","info":{"name":"Wicked"}},"listingID":"L2","schemaVersion":1}"#)
        #expect(wrapped.status == 0 && wrapped.output.hasPrefix("recorded DetailsViewed for ada"), "\(wrapped)")
        // The payload as the log shows it is taken back whole.
        let log = try cli.run("log", "--json")
        let line = try #require(log.output.split(separator: "\n").first, "\(log)")
        let first = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(log)")
        let data = try JSONSerialization.data(withJSONObject: try #require(first["data"]))
        let again = try view("L1", String(decoding: data, as: UTF8.self))
        #expect(again.status == 0 && again.output.hasPrefix("recorded DetailsViewed for ada"), "\(again)")
        // New events keep writing the empty lists (the stored form is unchanged).
        let lines = try cli.run("log", "--json").output.split(separator: "\n")
        #expect(lines.count == 3)
        for line in lines {
            #expect(line.contains(#""artistsOrTeams":[]"#) && line.contains(#""genres":[]"#) && line.contains(#""upcomingEvents":[]"#), "\(line)")
        }
        #expect(try Self.shown(cli, user: "ada").map(\.listing) == ["L1", "L2"])

        // Refused, naming what is wrong, and nothing recorded.
        let refusals: [(String, String)] = [
            (#"{"details":{"listingID":"L2","info":{"name":"Wicked"}},"listingID":"L9","schemaVersion":1}"#, "'listingID' is not usable: 'L9' is not the details' own listingID 'L2'"),
            (#"{"details":{"listingID":"L2","info":{"name":"Wicked"}},"listingID":"L2","schemaVersion":2}"#, "'schemaVersion' is not usable: must be 1"),
            (#"{"details":{"listingID":"L2","info":{}},"listingID":"L2"}"#, "'details.info.name' is missing"),
            (#"{"listingID":"L2","info":{"name":"Wicked","genres":"Rock"}}"#, "'info.genres' must be an array"),
        ]
        for (details, words) in refusals {
            let refused = try view("L2", details)
            #expect(refused.status == 65 && refused.errors.contains(words), "\(details): \(refused)")
        }
        #expect(try cli.run("log", "--json").output.split(separator: "\n").count == 3, "nothing recorded")
        let help = try cli.run("view", "--help")
        #expect(help.output.contains(#"{"listingID":"L000042","info":{"name":"Hamilton""#) && help.output.contains("schemaVersion"), "\(help)")
    }
}
