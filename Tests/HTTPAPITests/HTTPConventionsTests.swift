import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// What an HTTP client and a phone app's cache expect of the API (docs/reference/http.md): 304 for a
/// current `If-None-Match`, a 201's `Location` the writer may read, `Link: rel="next"` beside
/// `nextAfter`, 401/403 counted under the route asked for, and a body member the operation
/// does not declare refused by name (at any depth) instead of dropped.
struct HTTPConventionsTests {
    static let json = ["Content-Type": "application/json"]
    static let summary = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)

    func withAPI(tokens: TokenFile? = nil, _ body: (API) throws -> Void) throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        try body(API(application: Application(store: file.store), tokens: tokens))
    }

    @Test func ifNoneMatchWithTheCurrentTagAnswers304() throws {
        try withAPI { api in
            #expect(api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Self.summary)).status == 201)
            for target in ["/v1/users/ada/favorites", "/v1/users/ada/listings/L1", "/v1/users/ada/history", "/v1/users/ada/recent-searches"] {
                let first = api.respond(to: HTTPRequest(method: "GET", target: target))
                let tag = try #require(first.header("ETag"), "\(target)")
                for header in [tag, "W/" + tag, "\"77\", " + tag, "*"] {
                    let again = api.respond(to: HTTPRequest(method: "GET", target: target, headers: ["If-None-Match": header]))
                    #expect(again.status == 304 && again.body.isEmpty && again.header("ETag") == tag, "\(target) If-None-Match: \(header)")
                }
                let stale = api.respond(to: HTTPRequest(method: "GET", target: target, headers: ["If-None-Match": "\"0\""]))
                #expect(stale.status == 200 && stale.body == first.body, "\(target): an old tag gets the answer")
            }
            // After a write the old tag is stale.
            let before = try #require(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).header("ETag"))
            #expect(api.respond(to: HTTPRequest(method: "DELETE", target: "/v1/users/ada/favorites/L1")).status == 201)
            let after = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites", headers: ["If-None-Match": before]))
            #expect(after.status == 200 && after.text == #"{"items":[]}"#, "\(after.text)")
            // An answer as of a past point has no tag: never 304.
            let past = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites?as-of=1", headers: ["If-None-Match": "*"]))
            #expect(past.status == 200, "\(past.status)")
        }
    }

    @Test func aCreatedLocationIsAViewTheAppMayRead() throws {
        let app = TokenFile.newToken()
        let tokens = try TokenFile(parsing: TokenFile.line(for: app, role: .app, name: "ios") + "\n", path: "tokens.txt")
        try withAPI(tokens: tokens) { api in
            let headers = ["Authorization": "Bearer " + app].merging(Self.json) { $1 }
            let cases: [(HTTPRequest, String)] = [
                (HTTPRequest(method: "PUT", target: "/v1/users/jos%C3%A9%20a/favorites/L%201", headers: headers, body: Self.summary), "/v1/users/jos%C3%A9%20a/listings/L%201"),
                (HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: headers, body: Array(#"{"keyword":"jazz","location":"LA"}"#.utf8)), "/v1/users/ada/recent-searches"),
                (HTTPRequest(method: "DELETE", target: "/v1/users/jos%C3%A9%20a/favorites/L%201", headers: headers), "/v1/users/jos%C3%A9%20a/listings/L%201"),
            ]
            for (request, location) in cases {
                let written = api.respond(to: request)
                #expect(written.status == 201 && written.header("Location") == location, "\(request.path): \(written.header("Location") ?? "none")")
                let read = api.respond(to: HTTPRequest(method: "GET", target: location, headers: headers))
                #expect(read.status == 200, "the app reads \(location): \(read.text)")
            }
        }
    }

    @Test func pagedReadsLinkTheNextPage() throws {
        try withAPI { api in
            for listing in ["L1", "L2", "L3"] {
                #expect(api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/\(listing)", headers: Self.json, body: Self.summary)).status == 201)
            }
            let first = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=Favorited&limit=2"))
            #expect(first.header("Link") == #"</v1/users/ada/history?type=Favorited&limit=2&after=2>; rel="next""#, "\(first.header("Link") ?? "none")")
            let last = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=Favorited&limit=2&after=2"))
            #expect(last.header("Link") == nil && last.text.contains(#""nextAfter":null"#), "\(last.text)")
            let log = api.respond(to: HTTPRequest(method: "GET", target: "/v1/log?after=0&limit=2"))
            #expect(log.header("Link") == #"</v1/log?limit=2&after=2>; rel="next""#, "\(log.header("Link") ?? "none")")
            let tail = api.respond(to: HTTPRequest(method: "GET", target: "/v1/log?after=2&limit=2"))
            #expect(tail.header("Link") == nil, "a page short of the limit reached the head")
        }
    }

    @Test func refusedCallsAreCountedUnderTheirRoute() throws {
        let app = TokenFile.newToken()
        let tokens = try TokenFile(parsing: TokenFile.line(for: app, role: .app, name: "ios") + "\n", path: "tokens.txt")
        try withAPI(tokens: tokens) { api in
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).status == 401)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history", headers: ["Authorization": "Bearer " + app])).status == 403)
            let text = api.metrics.text()
            #expect(text.contains(#"route="getFavorites",status="401""#), "\(text)")
            #expect(text.contains(#"route="getHistory",status="403""#), "\(text)")
            #expect(!text.contains(#"route="unmatched",status="401""#) && !text.contains(#"route="unmatched",status="403""#), "\(text)")
        }
    }

    @Test func undeclaredBodyMembersAreRefusedByName() throws {
        try withAPI { api in
            let cases: [(String, String, String)] = [
                ("POST", "/v1/users/carol/searches", #"{"keyword":"x","location":"LA","catgory":"Music","distanse":50}"#),
                ("POST", "/v1/users/carol/searches", #"{"keyword":"x","here":{"latitude":1,"longitude":2,"altitude":3}}"#),
                ("POST", "/v1/users/carol/searches", #"{"keyword":"x","location":"LA","results":{"count":0,"listingIDs":[],"more":true}}"#),
                ("PUT", "/v1/users/carol/favorites/L1", #"{"name":"a","venue":"v","localDateTime":"2026-12-05 19:30:00","category":"Music","price":3}"#),
                ("POST", "/v1/users/carol/views", #"{"listingID":"L1","info":{"name":"a","artistsOrTeams":[],"genres":[],"priceRange":{"minimum":1,"maximum":2,"currenc":"USD"}},"upcomingEvents":[]}"#),
                ("POST", "/v1/users/carol/views", #"{"listingID":"L1","info":{"name":"a","artistsOrTeams":[],"genres":[]},"upcomingEvents":[],"artists":[{"name":"b","albumCovers":[]},{"name":"c","albumCovers":[],"nam":"d"}]}"#),
                ("POST", "/v1/admin/rebuild", #"{"viewz":["favorites"]}"#),
            ]
            let fields = ["catgory", "here.altitude", "results.more", "price", "info.priceRange.currenc", "artists[1].nam", "viewz"]
            for ((method, target, body), field) in zip(cases, fields) {
                let response = api.respond(to: HTTPRequest(method: method, target: target, headers: Self.json, body: Array(body.utf8)))
                #expect(response.status == 422 && response.text.contains(#""field":"\#(field)""#), "\(field): \(response.text)")
            }
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/log")).text == #"{"events":[],"nextAfter":0}"#, "nothing was recorded")
        }
    }

    @Test("POST …/views takes the details object or the DetailsViewed payload; a member neither declares is a 422 naming its path")
    func viewsTakeBothDetailsForms() throws {
        try withAPI { api in
            func post(_ body: String) -> HTTPResponse {
                api.respond(to: HTTPRequest(method: "POST", target: "/v1/users/carol/views", headers: Self.json, body: Array(body.utf8)))
            }
            let bare = post(#"{"listingID":"L1","info":{"name":"Hamilton"}}"#)
            #expect(bare.status == 201, "\(bare.text)")
            let wrapped = post(#"{"details":{"listingID":"L2","info":{"name":"Wicked","genres":["Musical"]}},"listingID":"L2","schemaVersion":1}"#)
            #expect(wrapped.status == 201, "\(wrapped.text)")
            let listing = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/carol/listings/L2"))
            #expect(listing.status == 200 && listing.text.contains("Wicked") && listing.text.contains("Musical"), "\(listing.text)")
            let log = api.respond(to: HTTPRequest(method: "GET", target: "/v1/log")).text
            #expect(log.components(separatedBy: #""upcomingEvents":[]"#).count == 3 && log.components(separatedBy: #""artistsOrTeams":[]"#).count == 3, "\(log)")

            let refused: [(String, String)] = [
                (#"{"details":{"listingID":"L3","info":{"name":"a","nam":"b"}},"listingID":"L3"}"#, "details.info.nam"),
                (#"{"details":{"listingID":"L3","info":{"name":"a"}},"listingID":"L3","extra":1}"#, "extra"),
                (#"{"details":{"listingID":"L3","info":{"name":"a"},"upcomingEvents":[{"name":"x","when":"y"}]},"listingID":"L3"}"#, "details.upcomingEvents[0].when"),
                (#"{"listingID":"L3","info":{"name":"a"},"detail":{}}"#, "detail"),
                (#"{"listingID":"L3","info":{"name":"a","genre":[]}}"#, "info.genre"),
                (#"{"details":{"listingID":"L3","info":{"name":"a"}},"listingID":"L4"}"#, "listingID"),
                (#"{"details":{"listingID":"L3","info":{"name":"a"}},"listingID":"L3","schemaVersion":7}"#, "schemaVersion"),
            ]
            for (body, field) in refused {
                let response = post(body)
                #expect(response.status == 422 && response.text.contains(#""field":"\#(field)""#), "\(body): \(response.text)")
            }
            let extra = post(#"{"details":{"listingID":"L3","info":{"name":"a"}},"listingID":"L3","extra":1}"#).text
            #expect(extra.contains("it takes artists, details, info, listingID, schemaVersion, upcomingEvents, venue"), "\(extra)")
            let history = api.respond(to: HTTPRequest(method: "GET", target: "/v1/log")).text
            #expect(history == log, "nothing more was recorded")
        }
    }

    @Test func asOfBeyondTheHeadIsRefusedAsOnTheCommandLine() throws {
        try withAPI { api in
            #expect(api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Self.summary)).status == 201)
            for path in ["/v1/users/ada/favorites", "/v1/users/ada/recent-searches", "/v1/users/ada/recently-viewed", "/v1/users/ada/history", "/v1/listings/L1/details"] {
                let position = api.respond(to: HTTPRequest(method: "GET", target: path + "?as-of=999"))
                #expect(position.status == 422 && position.text.contains(#""field":"as-of""#)
                        && position.text.contains("as-of position 999 is beyond the head of the log (position 1)"), "\(path): \(position.text)")
                let time = api.respond(to: HTTPRequest(method: "GET", target: path + "?as-of=2099-01-01"))
                #expect(time.status == 422 && time.text.contains("in the future, beyond the head of the log (position 1)"), "\(path): \(time.text)")
                let head = api.respond(to: HTTPRequest(method: "GET", target: path + "?as-of=1"))
                #expect(head.status == 200 || (path.hasPrefix("/v1/listings") && head.status == 404), "\(path) as of the head: \(head.status)")
            }
        }
    }

    @Test func everyProblemTypeResolvesToAPage() throws {
        try withAPI { api in
            for kind in Problem.Kind.allCases {
                let page = api.respond(to: HTTPRequest(method: "GET", target: kind.uri))
                #expect(page.status == 200 && page.header("Content-Type") == "text/html; charset=utf-8", "\(kind.uri): \(page.status)")
                #expect(page.text.contains("<h1>\(kind.title.replacingOccurrences(of: "'", with: "&#39;"))</h1>") && page.text.contains("<strong>\(kind.status)</strong>"), "\(kind.uri)")
            }
            let refused = api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Array("{".utf8)))
            let type = try #require((try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])?["type"] as? String)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: type)).status == 200, "a problem's own type resolves: \(type)")
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/problems/no-such-kind")).status == 404)
        }
    }

    @Test func auditPagesLinkTheirUsersAndSayWhatIsEmpty() throws {
        try withAPI { api in
            #expect(api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/jos%C3%A9/favorites/L1", headers: Self.json.merging(["X-Occurred-At": "2026-12-01T10:00:00Z"]) { $1 },
                                                body: Self.summary)).status == 201)
            #expect(api.respond(to: HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json, body: Array(#"{"keyword":"jazz","location":"LA"}"#.utf8))).status == 201)
            let overview = api.respond(to: HTTPRequest(method: "GET", target: "/v1/audit")).text
            #expect(overview.contains(#"<nav id="contents">"#) && overview.contains(#"<section id="users-section">"#), "\(overview.prefix(2_000))")
            for link in ["audit/users/jos%C3%A9", "audit/users/ada"] {
                #expect(overview.contains(#"href="\#(link)""#), "the overview links \(link)")
                // The link is relative to /v1/audit, where the overview is served.
                #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/" + link)).status == 200, "\(link) resolves")
            }
            let page = api.respond(to: HTTPRequest(method: "GET", target: "/v1/audit/users/ada")).text
            #expect(page.contains(#"<nav id="contents">"#) && page.contains("<th>Occurred</th>"), "a table of contents, and when each action occurred")
            #expect(page.contains(#"<p id="favorites" class="muted">No favorites.</p>"#) && !page.contains(#"<table id="favorites">"#), "an empty list says so, no header over nothing")
            #expect(!page.contains("href=\"docs/"), "no link to a path that neither a served nor a saved page has")
            let jose = api.respond(to: HTTPRequest(method: "GET", target: "/v1/audit/users/jos%C3%A9")).text
            #expect(jose.contains("<td>2026-12-01T10:00:00.000000Z</td>"), "the time the action occurred beside the time recorded")
        }
    }

    @Test func theOverviewListsTheSignedCheckpoints() throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        let key = try Ed25519Key.generate()
        let api = API(application: Application(store: file.store), tokens: nil, sealKey: key)
        #expect(api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Self.summary)).status == 201)
        let empty = api.respond(to: HTTPRequest(method: "GET", target: "/v1/audit")).text
        #expect(empty.contains(#"<h2>Signed checkpoints (0)</h2><p id="signed-checkpoints" class="muted none">No checkpoints recorded (each evtool seal --key records one).</p>"#), "none yet, said so")
        let sealed = api.respond(to: HTTPRequest(method: "POST", target: "/v1/admin/seal"))
        #expect(sealed.status == 200 || sealed.status == 201, "\(sealed.status) \(sealed.text)")
        let overview = api.respond(to: HTTPRequest(method: "GET", target: "/v1/audit")).text
        #expect(overview.contains("<h2>Signed checkpoints (1)</h2>") && overview.contains("evtool \(Checkpoint.keyID(of: key))"),
                "the checkpoint the seal signed, with its key's id")
    }
}
