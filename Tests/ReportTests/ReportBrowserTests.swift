import Foundation
import TestSupport
import Testing

/// `evtool report` pages loaded in headless Chromium: what they show equals what the query
/// commands say for the same user and point, nothing leaves the page, nothing runs.
@Suite("Report: pages in a real browser", .serialized)
struct ReportBrowserTests {
    @Test("demo store on SQLite: counts, timeline and lists equal history/favorites/recent/viewed --json, now and as of a position; the charts have a point a day of --days; the overview's verdict is verify's")
    func demoStoreSQLite() throws {
        let folder = try Browser.outputFolder("demo-sqlite")
        let store = "sqlite:" + folder + "/demo.sqlite"
        try? FileManager.default.removeItem(atPath: folder + "/demo.sqlite")
        let demo = try Processes.run(Processes.evtool, ["demo", "--users", "8", "--actions", "400", "--days", "5", "--seed", "3", "--store", store])
        #expect(demo.status == 0, "\(demo)")
        #expect(try Processes.run(Processes.evtool, ["seal", "--store", store]).status == 0)
        let user = try Shell.busiestUser(store)
        let page = try Shell.report(store: store, user: user, asOf: nil, folder: folder, name: "user")
        try Shell.expectMatches(page, store: store, user: user, asOf: nil)
        // Five days of actions end today: five or six UTC days (the span starts part way through one).
        #expect((5...6).contains(page.points.count), "one point a day the user's actions occurred over: \(page.points)")
        try Shell.expectChartMatchesOccurred(page, store: store, user: user)
        let overview = try Shell.overview(store: store, folder: folder, name: "overview")
        #expect((5...6).contains(Set(overview.overview.bars.map(\.day)).count), "\(overview.overview.bars)")
        #expect(overview.activePoints > 1 && overview.activePoints == Set(overview.overview.bars.map(\.day)).count)
        try Shell.expectVerdict(overview, store: store)
        #expect(page.seal == "1", "the seal made after the demo covers the user's last event")
        #expect(page.sealCheck == "verified" && page.sealSteps.contains { $0[0] == "hash" && $0[1] == "passed" }, "\(page.sealSteps)")

        let middle = try Shell.history(store: store, user: user, asOf: nil).map(\.position).sorted()[20]
        let past = try Shell.report(store: store, user: user, asOf: String(middle), folder: folder, name: "user-as-of")
        try Shell.expectMatches(past, store: store, user: user, asOf: String(middle))
        #expect(past.timeline.count == 21)
    }

    @Test("hand-made store over five days on PostgreSQL: chart points equal favorites --as-of each day's end; lists as of a time")
    func handMadePostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        let folder = try Browser.outputFolder("handmade-postgres")
        try HandMade.make(store: store, folder: folder, hostile: false)
        let page = try Shell.report(store: store, user: "ada", asOf: nil, folder: folder, name: "ada")
        try Shell.expectMatches(page, store: store, user: "ada", asOf: nil)
        try Shell.expectChartMatches(page, store: store, user: "ada")
        #expect(page.points.count == 5, "\(page.points)")
        #expect(Set(page.points.map(\.count)).count > 1, "the favorites count changes over the days: \(page.points)")
        #expect(page.favoriteChanges?.contains { $0[0] == "L7" && $0[3] != "still held" } == true, "L7 was removed: \(page.favoriteChanges ?? [])")
        #expect(page.searches?.map { $0[3] } == ["Hamilton", "jazz clubs", "Lakers"], "\(page.searches ?? [])")
        let occurred = try Shell.history(store: store, user: "ada", asOf: nil).filter { $0.type == "Searched" }.map(\.occurredAt)
        #expect(page.searches?.map { $0[2] } == occurred, "the searches show when each occurred: \(page.searches ?? [])")

        let past = try Shell.report(store: store, user: "ada", asOf: "2026-03-03T00:00:00Z", folder: folder, name: "ada-as-of-time")
        try Shell.expectMatches(past, store: store, user: "ada", asOf: "2026-03-03T00:00:00Z")
        #expect(past.timeline.count < page.timeline.count && !past.timeline.isEmpty)

        let overview = try Shell.overview(store: store, folder: folder, name: "overview")
        #expect(Set(overview.overview.bars.map(\.day)).count == 6, "ada's five days and bob's sixth: \(overview.overview.bars)")
        try Shell.expectVerdict(overview, store: store)
    }

    @Test("a fresh store's overview says in words that each list is empty (no header over nothing) and that there is nothing to verify")
    func freshStore() throws {
        let folder = try Browser.outputFolder("fresh-sqlite")
        let path = folder + "/fresh.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = "sqlite:" + path
        try Shell.evtool(["init"], store: store)
        let overview = try Shell.overview(store: store, folder: folder, name: "overview")
        #expect(overview.verdict?.first == "empty", "\(overview.verdict ?? [])")
        #expect(overview.overview.bars.isEmpty && overview.activePoints == 0)
        for words in ["No users.", "No listing was favorited.", "No seals", "No checkpoints recorded", "No user was erased."] {
            #expect(overview.bodyText.contains(words), "'\(words)' is not on the page")
        }
    }

    @Test("hand-made store on SQLite with an erasure: erased rows show who, why and when; the store overview's numbers equal the log's")
    func erasureAndOverviewSQLite() throws {
        let folder = try Browser.outputFolder("erasure-overview-sqlite")
        let path = folder + "/store.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = "sqlite:" + path
        try HandMade.make(store: store, folder: folder, hostile: false)
        let erased = try Processes.run(Processes.evtool, ["forget", "--user", "bob", "--reason", "GDPR request #7", "--by", "alice", "--store", store])
        #expect(erased.status == 0, "\(erased)")
        let bob = try Shell.report(store: store, user: "bob", asOf: nil, folder: folder, name: "bob")
        #expect(!bob.timeline.isEmpty && bob.timeline.allSatisfy(\.erased), "\(bob.timeline)")
        #expect(bob.timeline.allSatisfy { $0.cells[4].contains("by alice: GDPR request #7") }, "\(bob.timeline.map(\.cells))")
        #expect(bob.chain == "verified")
        #expect(!bob.bodyText.contains("jazz"), "an erased keyword is on the page")

        let overview = try Shell.overview(store: store, folder: folder, name: "overview")
        let log = try Processes.run(Processes.evtool, ["export", "--store", store])
        let events = log.output.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(overview.overview.events == String(events.count))
        let users = Set(events.compactMap { $0["stream"] as? String }.filter { !$0.hasPrefix("$") })
        #expect(overview.overview.users == String(users.count))
        #expect(overview.overview.bars.map(\.count).reduce(0, +) == events.count, "every event is in one bar")
        // The bars count each event on the day it occurred (its metadata's occurredAt, else its recorded time);
        // the days table has the events recorded each day beside them.
        var perDay: [String: Int] = [:]
        var recordedPerDay: [String: Int] = [:]
        for event in events {
            let occurred = (event["metadata"] as? [String: Any])?["occurredAt"] as? String ?? event["recordedAt"] as? String ?? ""
            perDay[String(occurred.prefix(10)), default: 0] += 1
            recordedPerDay[String((event["recordedAt"] as? String ?? "").prefix(10)), default: 0] += 1
        }
        var barsPerDay: [String: Int] = [:]
        for bar in overview.overview.bars { barsPerDay[bar.day, default: 0] += bar.count }
        #expect(barsPerDay == perDay)
        let recordedColumn = (overview.overview.days ?? []).compactMap { row in Int(row[6]).map { (row[0], $0) } }.filter { $0.1 > 0 }
        #expect(Dictionary(uniqueKeysWithValues: recordedColumn) == recordedPerDay, "\(overview.overview.days ?? [])")
        #expect(overview.verdict?.first == "verified", "\(overview.verdict ?? [])")
        #expect(overview.overview.erasures?.count == 1 && overview.overview.erasures?.first?[5] == "GDPR request #7")
        #expect(overview.overview.seals?.count == 1)
        // ada favorited L7 twice and L8 once; bob's favorite of L8 is erased, so it no longer counts.
        #expect(overview.overview.mostFavorited?.prefix(2).map { [$0[0], $0[2]] } == [["L7", "2"], ["L8", "1"]], "\(overview.overview.mostFavorited ?? [])")
        #expect(overview.overview.checkpoints?.isEmpty == false)
        #expect(Browser.foreignRequests(overview, file: folder + "/overview.html").isEmpty)
    }

    @Test("served by evtool serve to an auditor's token: the same numbers as the CLI, the CSP header applies, nothing leaves the page")
    func served() throws {
        let folder = try Browser.outputFolder("served-sqlite")
        let path = folder + "/store.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = "sqlite:" + path
        try HandMade.make(store: store, folder: folder, hostile: false)
        let tokens = folder + "/tokens.txt"
        try? FileManager.default.removeItem(atPath: tokens)
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "auditor", "--tokens", tokens])
        #expect(made.status == 0, "\(made)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try LocalServer.freePort()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", store])
        defer { if server.isRunning { server.send(SIGKILL) } }
        try LocalServer.waitUntilListening(port, process: server)
        let url = "http://127.0.0.1:\(port)/v1/audit/users/ada"
        let page = try Browser.load(url, screenshot: folder + "/served.png", bearer: token)
        let overviewURL = "http://127.0.0.1:\(port)/v1/audit"
        let overview = try Browser.load(overviewURL, screenshot: folder + "/served-overview.png", bearer: token)
        let bob = try Browser.load(url.replacingOccurrences(of: "/ada", with: "/bob"), screenshot: folder + "/served-bob.png", bearer: token)
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("GET /v1/audit/users/ada 200 "), "the browser's request was answered: \(ended.errors.suffix(1_000))")
        #expect(page.styleApplied == "1100px", "the stylesheet applies under the CSP header")
        #expect(page.pwned == nil && page.scripts == 0)
        #expect(page.requests.contains { $0.url == url }, "the performance log saw the page's own request: \(page.requests)")
        #expect(Browser.foreignRequests(page, own: [url]).isEmpty, "the served page made requests: \(Browser.foreignRequests(page, own: [url]))")
        #expect(!page.console.contains { $0.contains("Content Security Policy") }, "\(page.console)")
        #expect(page.sealCheck == "verified" && page.chain == "verified")
        #expect(FileManager.default.fileExists(atPath: folder + "/served.png"))
        try Shell.expectMatches(page, store: store, user: "ada", asOf: nil)

        // Served pages link to the server's routes too: each answers 200 to the same token.
        for served in [page, overview, bob] { Shell.expectLinksAndTables(served, saved: false) }
        let base = "http://127.0.0.1:\(port)/v1/"
        #expect(page.otherLinks.contains(base + "audit"), "the user's page links to the overview: \(page.otherLinks)")
        #expect(overview.otherLinks.contains(base + "audit/users/ada") && overview.otherLinks.contains(base + "audit/users/bob"), "\(overview.otherLinks)")
        #expect(overview.otherLinks.contains { $0.hasPrefix(base + "log?after=") }, "the seal's position links to the log: \(overview.otherLinks)")
        #expect(overview.otherLinks.contains(base + "listings/L7/details"), "the most viewed listing links to its cached details: \(overview.otherLinks)")
        for served in [page, overview, bob] {
            #expect(!served.linkStatuses.isEmpty && served.linkStatuses.count == Set(served.otherLinks).count)
            #expect(served.linkStatuses.allSatisfy { $0.status == 200 }, "\(served.linkStatuses)")
        }
        try Shell.expectVerdict(overview, store: store)
    }

    @Test("hostile strings (markup, </style>, RTL override, 10 KB names) show as text; no script runs; the layout holds")
    func hostileStrings() throws {
        let folder = try Browser.outputFolder("hostile-sqlite")
        let path = folder + "/store.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        let store = "sqlite:" + path
        try HandMade.make(store: store, folder: folder, hostile: true)
        for (user, name) in [(HandMade.hostileUser, "hostile-user"), ("ada", "hostile-ada")] {
            let page = try Shell.report(store: store, user: user, asOf: nil, folder: folder, name: name)
            #expect(page.pwned == nil, "an injected handler ran")
            #expect(page.scripts == 0 && page.images == 0 && page.iframes == 0 && page.onHandlers.isEmpty, "markup from the log became elements: \(page.onHandlers)")
            for hostile in HandMade.hostileStrings(for: user) {
                #expect(page.bodyText.contains(hostile), "'\(hostile.prefix(80))' is not shown as text")
            }
            #expect(page.scrollWidth <= page.clientWidth + 1, "the page scrolls sideways: \(page.scrollWidth) > \(page.clientWidth)")
            #expect(!page.console.contains { $0.contains("Content Security Policy") }, "\(page.console)")
            try Shell.expectMatches(page, store: store, user: user, asOf: nil)
        }
        let overview = try Shell.overview(store: store, folder: folder, name: "hostile-overview")
        #expect(overview.pwned == nil && overview.scripts == 0 && overview.images == 0 && overview.onHandlers.isEmpty)
        for listing in [HandMade.quoteBreak, HandMade.longName, HandMade.rtl] {
            #expect(overview.bodyText.contains(listing), "the most favorited listings show '\(listing.prefix(80))' as text")
        }
        #expect(overview.scrollWidth <= overview.clientWidth + 1)
    }
}
