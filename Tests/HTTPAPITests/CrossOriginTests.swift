import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// CORS for browser clients (`evtool serve --cors-origin`): off by default; with origins
/// named, preflights are answered and allowed origins' answers carry the CORS headers. The
/// header logic in process, then a real server with curl (the edge adds the headers to every
/// answer, its own refusals included).
@Suite("CORS: --cors-origin")
struct CrossOriginTests {
    static let origin = "https://app.example"
    static let summary = #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#

    func withAPI(_ crossOrigin: CrossOrigin?, _ body: (API, String) throws -> Void) throws {
        let token = TokenFile.newToken()
        let file = try TokenFile(parsing: TokenFile.line(for: token, role: .app, name: "web") + "\n", path: "tokens.txt")
        let sqlite = try TestStores.sqliteFile()
        defer { sqlite.cleanup() }
        try body(API(application: Application(store: sqlite.store), tokens: file, crossOrigin: crossOrigin), token)
    }

    func preflight(_ path: String, origin: String?, method: String = "PUT") -> HTTPRequest {
        var headers = ["Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization, content-type, if-match"]
        if let origin { headers["Origin"] = origin }
        return HTTPRequest(method: "OPTIONS", target: path, headers: headers)
    }

    @Test("without --cors-origin: OPTIONS is 405 with Allow, and no answer carries a CORS header")
    func offByDefault() throws {
        try withAPI(nil) { api, _ in
            let response = api.respond(to: preflight("/v1/users/ada/favorites/L1", origin: Self.origin))
            #expect(response.status == 405 && response.header("Allow") == "PUT, DELETE", "\(response.status) \(response.headers)")
            #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") }, "\(response.headers)")
        }
    }

    @Test("a preflight from a listed origin: 204 with the route's methods, the headers the API reads, a max age, Vary: Origin; no token needed")
    func preflightOfAListedOrigin() throws {
        let cors = try CrossOrigin(origins: [Self.origin, "http://localhost:5173"])
        try withAPI(cors) { api, _ in
            let response = api.respond(to: preflight("/v1/users/ada/favorites/L1", origin: Self.origin))
            #expect(response.status == 204 && response.body.isEmpty, "\(response.status) \(response.text)")
            #expect(response.header("Access-Control-Allow-Origin") == Self.origin)
            #expect(response.header("Access-Control-Allow-Methods") == "PUT, DELETE")
            #expect(response.header("Access-Control-Allow-Headers") == "Authorization, Content-Type, Idempotency-Key, If-Match, If-None-Match, X-Source, X-Correlation-ID, X-Occurred-At, X-Request-ID")
            #expect(response.header("Access-Control-Max-Age") == "600" && response.header("Vary") == "Origin" && response.header("Allow") == "PUT, DELETE, OPTIONS")
            // Another listed origin gets itself back; origins compare without case.
            let other = api.respond(to: preflight("/v1/stats", origin: "http://LOCALHOST:5173", method: "GET"))
            #expect(other.status == 204 && other.header("Access-Control-Allow-Origin") == "http://LOCALHOST:5173" && other.header("Access-Control-Allow-Methods") == "GET")
            // A path no route serves is still a 404.
            #expect(api.respond(to: preflight("/v1/nothing", origin: Self.origin)).status == 404)
        }
    }

    @Test("an unlisted origin (or none) gets no CORS headers: a preflight is 204 with Allow only")
    func unlistedOrigin() throws {
        let cors = try CrossOrigin(origins: [Self.origin])
        try withAPI(cors) { api, _ in
            for origin in ["https://evil.example", "https://app.example.evil", "http://app.example", nil] as [String?] {
                let response = api.respond(to: preflight("/v1/users/ada/favorites/L1", origin: origin))
                #expect(response.status == 204 && response.header("Allow") == "PUT, DELETE, OPTIONS", "\(String(describing: origin))")
                #expect(!response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") }, "\(String(describing: origin)): \(response.headers)")
                let applied = cors.applied(to: HTTPResponse.json(200, Array("{}".utf8)), origin: origin)
                #expect(applied.header("Access-Control-Allow-Origin") == nil && applied.header("Vary") == "Origin", "\(applied.headers)")
            }
        }
    }

    @Test("an answer to a listed origin carries Allow-Origin and Expose-Headers; a Vary it has gains Origin; '*' answers '*'")
    func actualResponses() throws {
        let cors = try CrossOrigin(origins: [Self.origin])
        let applied = cors.applied(to: HTTPResponse(status: 304, headers: [("ETag", "\"1\""), ("Vary", "Accept")]), origin: Self.origin)
        #expect(applied.header("Access-Control-Allow-Origin") == Self.origin && applied.header("Vary") == "Accept, Origin")
        #expect(applied.header("Access-Control-Expose-Headers") == "ETag, Location, Link, Idempotent-Replayed, Retry-After, X-Request-ID")
        let any = try CrossOrigin(origins: ["*"])
        #expect(any.applied(to: HTTPResponse(status: 200), origin: "https://anyone.example").header("Access-Control-Allow-Origin") == "*")
        #expect(any.applied(to: HTTPResponse(status: 200), origin: nil).header("Access-Control-Allow-Origin") == nil)
    }

    @Test("--cors-origin takes scheme://host[:port] or '*'; anything else is refused naming the value")
    func originsAreChecked() throws {
        for good in ["https://app.example", "http://localhost:5173", "http://127.0.0.1:8080", "http://[::1]:3000", "*"] {
            #expect(throws: Never.self, "\(good)") { _ = try CrossOrigin(origins: [good]) }
        }
        for bad in ["app.example", "https://app.example/", "https://app.example/path", "ftp://app.example", "null", "https://", "https://a b", "https://app.example:99999", ""] {
            #expect("\(bad)", performing: { _ = try CrossOrigin(origins: [bad]) }, throws: { error in
                "\(error)".contains("'\(bad)' is not an origin")
            })
        }
    }

    @Test("a real server: no CORS without the option; with it, preflights, answers, problems and refusals at the edge carry the headers for a listed Origin only")
    func realServer() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let tokens = directory.path + "/tokens.txt"
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "app", "--tokens", tokens])
        #expect(made.status == 0, "\(made)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let store = "sqlite:\(directory.path)/cors.sqlite"

        func serve(_ extra: [String]) throws -> (Processes.Running, String) {
            let port = try FreePort.find()
            let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--max-body", "4096", "--store", store] + extra)
            try FreePort.waitUntilListening(port, process: server)
            return (server, "http://127.0.0.1:\(port)")
        }
        func stop(_ server: Processes.Running) throws {
            server.send(SIGTERM)
            #expect(try server.finish().status == 0)
        }
        func cors(_ response: Curl.Response) -> [String: String] { response.headers.filter { $0.key.hasPrefix("access-control-") } }
        let preflightHeaders = ["Origin": Self.origin, "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "authorization,content-type"]

        // Off: OPTIONS is 405, a listed-looking Origin gets nothing.
        var (server, base) = try serve([])
        var response = try Curl.request("OPTIONS", base + "/v1/users/ada/favorites/L1", headers: preflightHeaders)
        #expect(response.status == 405 && cors(response).isEmpty && response.headers["vary"] == nil, "\(response)")
        response = try Curl.request("GET", base + "/v1/users/ada/favorites", headers: ["Origin": Self.origin, "Authorization": "Bearer \(token)"])
        #expect(response.status == 200 && cors(response).isEmpty, "\(response)")
        try stop(server)

        // A value that is no origin stops the server from starting (usage, 64).
        let refused = try Processes.run(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:0", "--cors-origin", "https://app.example/", "--store", store])
        #expect(refused.status == 64 && refused.errors.contains("'https://app.example/' is not an origin"), "\(refused)")

        (server, base) = try serve(["--cors-origin", Self.origin, "--cors-origin", "http://localhost:5173"])
        defer { if server.isRunning { server.send(SIGKILL) } }
        response = try Curl.request("OPTIONS", base + "/v1/users/ada/favorites/L1", headers: preflightHeaders)
        #expect(response.status == 204 && response.headers["access-control-allow-origin"] == Self.origin
                && response.headers["access-control-allow-methods"] == "PUT, DELETE" && response.headers["access-control-max-age"] == "600"
                && response.headers["access-control-allow-headers"]?.contains("Idempotency-Key") == true && response.headers["vary"] == "Origin", "\(response)")
        response = try Curl.request("PUT", base + "/v1/users/ada/favorites/L1", headers: ["Origin": Self.origin, "Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                    body: Self.summary)
        #expect(response.status == 201 && response.headers["access-control-allow-origin"] == Self.origin && response.headers["vary"] == "Origin"
                && response.headers["access-control-expose-headers"] == "ETag, Location, Link, Idempotent-Replayed, Retry-After, X-Request-ID"
                && response.headers["etag"] != nil && response.headers["x-request-id"] != nil, "\(response)")
        // A problem (401, no token) carries them too, so the script can read it.
        response = try Curl.request("GET", base + "/v1/users/ada/favorites", headers: ["Origin": "http://localhost:5173"])
        #expect(response.status == 401 && response.headers["access-control-allow-origin"] == "http://localhost:5173", "\(response)")
        // So does a refusal of the server's edge (413: a body beyond --max-body).
        response = try Curl.request("POST", base + "/v1/users/ada/searches", headers: ["Origin": Self.origin, "Authorization": "Bearer \(token)", "Content-Type": "application/json"],
                                    body: String(repeating: "x", count: 5_000))
        #expect(response.status == 413 && response.headers["access-control-allow-origin"] == Self.origin, "\(response)")
        // An unlisted origin: the answer, without any CORS header.
        response = try Curl.request("GET", base + "/v1/users/ada/favorites", headers: ["Origin": "https://evil.example", "Authorization": "Bearer \(token)"])
        #expect(response.status == 200 && cors(response).isEmpty && response.headers["vary"] == "Origin" && response.body.contains("L1"), "\(response)")
        response = try Curl.request("OPTIONS", base + "/v1/users/ada/favorites/L1", headers: preflightHeaders.merging(["Origin": "https://evil.example"]) { $1 })
        #expect(response.status == 204 && cors(response).isEmpty && response.headers["allow"] == "PUT, DELETE, OPTIONS", "\(response)")
        try stop(server)
    }
}
