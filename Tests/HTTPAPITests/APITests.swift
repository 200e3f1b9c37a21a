import Commands
import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Projections
import StoreSQLite
import Testing
import TestSupport

/// The API as pure functions on a real SQLite file: no socket, a request value in, a response value out.
struct APITests {
    static let summary = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)
    static let json = ["Content-Type": "application/json"]

    func withAPI(tokens: TokenFile? = nil, _ body: (API, SQLiteEventStore) throws -> Void) throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        try body(API(application: Application(store: file.store), tokens: tokens), file.store)
    }

    @Test func writesAnswer201WhenRecordedAnd200WhenUnchanged() throws {
        try withAPI { api, store throws in
            let put = HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Self.summary)
            let first = api.respond(to: put)
            #expect(first.status == 201 && first.header("ETag") == "\"1\"", "\(first.text)")
            let again = api.respond(to: put)
            #expect(again.status == 200 && again.text.contains(#""outcome":"unchanged""#), "\(again.text)")
            #expect(try store.headPosition() == 1)
            let page = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/listings/L1"))
            #expect(page.text.contains(#""favorite":true"#), "\(page.text)")
            #expect(api.respond(to: HTTPRequest(method: "DELETE", target: "/v1/users/ada/favorites/L1")).status == 201)
            let after = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/listings/L1"))
            #expect(after.text.contains(#""favorite":false"#) && after.header("ETag") == "\"2\"", "\(after.text)")
            #expect(api.respond(to: HTTPRequest(method: "DELETE", target: "/v1/users/ada/favorites/L1")).status == 200)
        }
    }

    @Test func ifMatchAppendsOnlyAtThatVersion() throws {
        try withAPI { api, store throws in
            let put = { (listing: String, ifMatch: String) in
                api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/\(listing)", headers: Self.json.merging(["If-Match": ifMatch]) { $1 }, body: Self.summary))
            }
            #expect(put("L1", "\"0\"").status == 201)
            let stale = put("L2", "\"0\"")
            #expect(stale.status == 412 && stale.header("ETag") == "\"1\"" && stale.header("Content-Type") == "application/problem+json", "\(stale.text)")
            #expect(put("L2", "W/\"1\"").status == 412, "a weak tag never matches")
            #expect(try store.headPosition() == 1, "a 412 records nothing")
            #expect(put("L2", "\"1\"").status == 201)
        }
    }

    @Test func anIdempotencyKeyReplaysTheFirstOutcome() throws {
        try withAPI { api, store throws in
            let search = HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json.merging(["Idempotency-Key": "k-1"]) { $1 },
                                     body: Array(#"{"keyword":"jazz","location":"Los Angeles"}"#.utf8))
            let first = api.respond(to: search)
            let again = api.respond(to: search)
            #expect(first.status == 201 && again.status == 201 && again.header("Idempotent-Replayed") == "true", "\(again.text)")
            #expect(first.text.replacingOccurrences(of: #""replayed":false"#, with: #""replayed":true"#) == again.text)
            #expect(try store.headPosition() == 1)
        }
    }

    @Test func rolesAndTokens() throws {
        let app = TokenFile.newToken(), auditor = TokenFile.newToken()
        let text = TokenFile.line(for: app, role: .app, name: "ios") + "\n# a comment\n" + TokenFile.line(for: auditor, role: .auditor, name: "") + "\n"
        let tokens = try TokenFile(parsing: text, path: "tokens.txt")
        #expect(!text.contains(app) && !text.contains(auditor), "only hashes are stored")
        #expect(tokens.role(of: app) == .app && tokens.role(of: auditor) == .auditor && tokens.role(of: app + "x") == nil && tokens.role(of: "") == nil)
        #expect(throws: TokenFile.FileError.self) { try TokenFile(parsing: "root 00\n", path: "t") }
        try withAPI(tokens: tokens) { api, _ throws in
            let bearer = { (token: String) in ["Authorization": "Bearer " + token] }
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).status == 401)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites", headers: bearer(app))).status == 200)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history", headers: bearer(app))).status == 403)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history", headers: bearer(auditor))).status == 404, "an auditor may read histories: of a user with no events, 404")
            let write = HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: bearer(auditor).merging(Self.json) { $1 }, body: Self.summary)
            #expect(api.respond(to: write).status == 403, "an auditor writes nothing")
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/healthz")).status == 200, "health needs no token")
        }
    }

    @Test func pathsThatCouldNameAnotherResourceAreRefused() throws {
        for path in ["/v1/users/a%2Fb/favorites", "/v1/users/a%2fb/favorites", "/v1/users/%2E%2E/favorites", "/v1/users/../favorites",
                     "/v1/users/./favorites", "/v1/users/%FF/favorites", "/v1/users/%00/favorites", "/v1/users/a%2/favorites", "/v1//favorites"] {
            #expect(throws: Problem.self, "\(path)") { try PathSegments.decode(path) }
        }
        #expect(try PathSegments.decode("/v1/users/Zo%C3%AB/favorites") == ["v1", "users", "Zoë", "favorites"])
        #expect(try PathSegments.decode("/v1/log/") == ["v1", "log"])
        try withAPI { api, _ throws in
            let response = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/a%2Fb/favorites"))
            #expect(response.status == 400 && response.text.contains("/problems/invalid-path"), "\(response.text)")
        }
    }

    @Test func errorsAreProblemDocumentsNamingTheField() throws {
        try withAPI { api, store throws in
            let cases: [(HTTPRequest, Int, String, String?)] = [
                (HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json, body: Array(#"{"keyword":"#.utf8)), 400, "malformed-request", nil),
                (HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json, body: Array(#"{"keyword":" ","location":"LA"}"#.utf8)), 422, "validation", "keyword"),
                (HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json, body: Array(#"{"location":"LA"}"#.utf8)), 422, "validation", "keyword"),
                (HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: ["Content-Type": "text/plain"], body: Array("{}".utf8)), 415, "unsupported-media-type", nil),
                (HTTPRequest(method: "PATCH", target: "/v1/users/ada/favorites/L1"), 405, "method-not-allowed", nil),
                (HTTPRequest(method: "GET", target: "/v1/nothing"), 404, "not-found", nil),
                (HTTPRequest(method: "GET", target: "/v1/listings/L404/details"), 404, "not-found", nil),
                (HTTPRequest(method: "GET", target: "/v1/log?limit=0"), 400, "malformed-request", "limit"),
                (HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1", headers: Self.json, body: Array(repeating: 0x20, count: (1 << 20) + 1)), 413, "body-too-large", nil),
            ]
            for (request, status, kind, field) in cases {
                let response = api.respond(to: request)
                #expect(response.status == status && response.header("Content-Type") == "application/problem+json", "\(request.method) \(request.path): \(response.text)")
                #expect(response.text.contains(#""type":"/problems/\#(kind)""#), "\(response.text)")
                if let field { #expect(response.text.contains(#""field":"\#(field)""#), "\(response.text)") }
            }
            #expect(try store.headPosition() == 0, "nothing recorded by a refused request")
        }
    }

    @Test func historyPagesVisitEveryEntryOnce() throws {
        try withAPI { api, _ throws in
            for index in 0..<7 {
                _ = api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L\(index)", headers: Self.json, body: Self.summary))
            }
            var positions: [Int64] = []
            var after: Int64 = 0
            while true {
                let page = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?limit=3&after=\(after)"))
                let object = try #require(try JSONSerialization.jsonObject(with: Data(page.body)) as? [String: Any])
                let items = try #require(object["items"] as? [[String: Any]])
                positions += items.compactMap { ($0["position"] as? NSNumber)?.int64Value }
                guard let next = (object["nextAfter"] as? NSNumber)?.int64Value else { break }
                after = next
            }
            #expect(positions == Array(1...7))
        }
    }

    /// The runner's `requiredVersion` (If-Match) is checked against the stream and never retried:
    /// of two writers deciding on the same version, one appends and the other is refused.
    @Test func requiredVersionIsNotRetried() throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        let runner = CommandRunner(store: file.store)
        let context = CommandContext(userID: "ada", source: "test", occurredAt: Date())
        let summary = ListingSummary(name: "n", venue: "v", localDateTime: "d", category: "c")
        _ = try runner.handle(.favorite(listingID: "L0", summary: summary), context: context, requiredVersion: 0)
        #expect(throws: EventStoreError.self) {
            try runner.handle(.favorite(listingID: "L1", summary: summary), context: context, requiredVersion: 0)
        }
        let results = Results()
        let runners = try (0..<8).map { _ in CommandRunner(store: try file.open()) }
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            let own = runners[index]
            do {
                _ = try own.handle(.favorite(listingID: "R\(index)", summary: summary), context: context, requiredVersion: 1)
                results.add(true)
            } catch {
                results.add(false)
            }
        }
        #expect(results.successes == 1, "exactly one writer at version 1 wins: \(results.successes)")
        #expect(try file.store.version(of: UserStream.id(for: "ada")) == 2)
    }

    @Test func theServedOpenAPIDocumentIsTheOneInDocs() throws {
        let docs = HTTPClient.root.appendingPathComponent("docs/openapi.json")
        let text = try String(contentsOf: docs, encoding: .utf8)
        #expect(text == OpenAPIDocument.text, "the served document is docs/openapi.json as it was at build time: rebuild")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        for route in API.routes {
            let template = route.template
            #expect(paths[template]?[route.method.lowercased()] != nil, "\(route.method) \(route.template) is in the document")
            let operation = paths[template]?[route.method.lowercased()] as? [String: Any]
            #expect(operation?["operationId"] as? String == route.name, "\(route.template)")
        }
        let documented = paths.reduce(0) { $0 + $1.value.keys.filter { ["get", "put", "post", "delete"].contains($0) }.count }
        #expect(documented == API.routes.count, "no operation in the document that the server lacks")
    }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Bool] = []
    func add(_ value: Bool) { lock.withLock { values.append(value) } }
    var successes: Int { lock.withLock { values.filter { $0 }.count } }
}
