import Foundation
import HTTPAPI
import Testing
import TestSupport

/// The `user` role through `evtool serve` and `evtool token create --role user --user ID`: a
/// phone app's token acts for its one user. It may call every route an app calls for that
/// user (however the path spells the id: NFC or NFD), and a listing's cached details; every
/// per-user route for another user (writes, reads, the event stream) is 403 and changes
/// nothing; the log, stats, history, metrics, audit, proofs and admin routes are 403 as for an
/// app.
@Suite(.serialized)
struct ServeUserTokenTests {
    static let summary = #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#
    static let search = #"{"keyword":"Hamilton","location":"Los Angeles"}"#
    static let details = #"{"listingID":"L1","info":{"name":"Hamilton"}}"#

    /// A server over a fresh SQLite store with the tokens `made` creates, its base URL and port.
    struct Server {
        var process: Processes.Running
        var base: String
        var port: Int
    }

    static func token(_ arguments: [String], tokens: String) throws -> String {
        let made = try Processes.run(Processes.evtool, ["token", "create"] + arguments + ["--tokens", tokens])
        #expect(made.status == 0, "\(made)")
        return made.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The problem document's `detail`, or the body when it has none.
    static func detail(_ response: Curl.Response) -> String {
        guard let object = try? JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any],
              let detail = object["detail"] as? String else { return response.body }
        return detail
    }

    static func streamRequest(_ path: String, token: String) -> [UInt8] {
        Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(token)\r\n\r\n".utf8)
    }

    @Test("a user token acts for its own user only: every app route for that user, 403 for any other user and for the log, stats, history and admin routes")
    func ownUserOnly() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = "sqlite:\(directory.path)/events.sqlite"
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        let tokens = directory.path + "/tokens.txt"
        let ada = try Self.token(["--role", "user", "--user", "ada", "--name", "ada-phone"], tokens: tokens)
        let app = try Self.token(["--role", "app", "--name", "backend"], tokens: tokens)
        let auditor = try Self.token(["--role", "auditor"], tokens: tokens)
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--heartbeat", "1", "--listen", "127.0.0.1:\(port)", "--store", store])
        defer { server.killIfRunning() }
        try FreePort.waitUntilListening(port, process: server)
        let base = "http://127.0.0.1:\(port)"
        func call(_ method: String, _ path: String, _ token: String, body: String? = nil) throws -> Curl.Response {
            var headers = ["Authorization": "Bearer \(token)"]
            if body != nil { headers["Content-Type"] = "application/json" }
            return try Curl.request(method, base + path, headers: headers, body: body)
        }

        // bob's data, recorded by the back end's app token.
        #expect(try call("PUT", "/v1/users/bob/favorites/L9", app, body: Self.summary).status == 201)
        #expect(try call("POST", "/v1/users/bob/searches", app, body: Self.search).status == 201)

        // Every app route for ada herself.
        let own: [(String, String, String?, Int)] = [
            ("POST", "/v1/users/ada/searches", Self.search, 201),
            ("PUT", "/v1/users/ada/favorites/L1", Self.summary, 201),
            ("PUT", "/v1/users/ada/favorites/L2", Self.summary, 201),
            ("DELETE", "/v1/users/ada/favorites/L2", nil, 201),
            ("POST", "/v1/users/ada/views", Self.details, 201),
            ("GET", "/v1/users/ada/favorites", nil, 200),
            ("GET", "/v1/users/ada/recent-searches", nil, 200),
            ("GET", "/v1/users/ada/recently-viewed", nil, 200),
            ("GET", "/v1/users/ada/listings/L1", nil, 200),
            ("GET", "/v1/listings/L1/details", nil, 200),
        ]
        for (method, path, body, status) in own {
            let response = try call(method, path, ada, body: body)
            #expect(response.status == status, "\(method) \(path): \(response)")
        }
        let favorites = try call("GET", "/v1/users/ada/favorites", ada)
        #expect(favorites.body.contains("\"L1\"") && !favorites.body.contains("\"L2\"") && !favorites.body.contains("L9"), "\(favorites)")
        #expect(try call("GET", "/v1/users/ada/recent-searches", ada).body.contains("Hamilton"))
        #expect(try call("GET", "/v1/users/ada/recently-viewed", ada).body.contains("L1"))
        let stream = try RawHTTP.exchange(port: port, Self.streamRequest("/v1/users/ada/events", token: ada), seconds: 1.5)
        #expect(stream.statuses == [200] && stream.text.contains("text/event-stream"), "\(stream)")
        #expect(stream.text.contains("event: Favorited") && stream.text.contains("event: Searched") && !stream.text.contains("L9"), "\(stream)")

        // Every per-user route for bob: 403, naming the route and the one user, never bob.
        let other: [(String, String, String?)] = [
            ("POST", "/v1/users/bob/searches", Self.search),
            ("PUT", "/v1/users/bob/favorites/L1", Self.summary),
            ("DELETE", "/v1/users/bob/favorites/L9", nil),
            ("POST", "/v1/users/bob/views", Self.details),
            ("GET", "/v1/users/bob/favorites", nil),
            ("GET", "/v1/users/bob/recent-searches", nil),
            ("GET", "/v1/users/bob/recently-viewed", nil),
            ("GET", "/v1/users/bob/listings/L9", nil),
            ("GET", "/v1/users/bob/events", nil),
            ("GET", "/v1/users/Ada/favorites", nil),
            ("GET", "/v1/users/ada%20/favorites", nil),
        ]
        for (method, path, body) in other {
            let response = try call(method, path, ada, body: body)
            let detail = Self.detail(response)
            #expect(response.status == 403 && response.body.contains(#""type":"/problems/forbidden""#), "\(method) \(path): \(response)")
            #expect(detail.contains("acts for one user only ('ada')") && detail.contains("\(method) /v1/users/{user}/"), "\(method) \(path): \(detail)")
            #expect(!detail.contains("bob") && !detail.contains("Ada"), "the other user's id is not echoed: \(detail)")
        }
        let refusedStream = try RawHTTP.exchange(port: port, Self.streamRequest("/v1/users/bob/events", token: ada), seconds: 1.5)
        #expect(refusedStream.statuses == [403] && !refusedStream.text.contains("L9") && !refusedStream.text.contains("event:"), "\(refusedStream)")
        let bobs = try call("GET", "/v1/users/bob/favorites", app)
        #expect(bobs.status == 200 && bobs.body.contains("\"L9\"") && !bobs.body.contains("\"L1\""), "bob's favorites are as they were: \(bobs)")
        #expect(try call("GET", "/v1/users/bob/recently-viewed", app).body == #"{"items":[]}"#)

        // Routes no user token may call, its own user's history included: 403 naming the roles that may.
        let closed: [(String, String, String)] = [
            ("GET", "/v1/users/ada/history", "auditor, admin"),
            ("GET", "/v1/log", "auditor, admin"),
            ("GET", "/v1/log/stream", "auditor, admin"),
            ("GET", "/v1/stats", "auditor, admin"),
            ("GET", "/metrics", "auditor, admin"),
            ("GET", "/v1/audit/users/ada", "auditor, admin"),
            ("GET", "/v1/audit", "auditor, admin"),
            ("GET", "/v1/checkpoints/latest", "auditor, admin"),
            ("POST", "/v1/admin/rebuild", "admin"),
            ("POST", "/v1/admin/seal", "admin"),
            ("POST", "/v1/admin/users/ada/forget", "admin"),
        ]
        for (method, path, roles) in closed {
            let response = try call(method, path, ada, body: method == "POST" ? #"{"reason":"x"}"# : nil)
            #expect(response.status == 403 && Self.detail(response).contains("the role 'user' may not \(method) ")
                    && Self.detail(response).hasSuffix("roles that may: \(roles)"), "\(method) \(path): \(response)")
        }
        // The roles that may write now name user tokens.
        let auditorWrite = try call("PUT", "/v1/users/ada/favorites/L3", auditor, body: Self.summary)
        #expect(auditorWrite.status == 403 && Self.detail(auditorWrite).hasSuffix("roles that may: app, user, admin"), "\(auditorWrite)")
        let history = try call("GET", "/v1/users/ada/history", auditor)
        #expect(history.status == 200 && !history.body.contains("L3"), "nothing refused was recorded: \(history)")

        server.send(SIGTERM)
        #expect(try server.finish().status == 0)
    }

    @Test("a user token's user is one user however the id is spelled: NFC and NFD paths, a --user typed in NFD; odd ids round-trip")
    func normalizedUser() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let store = "sqlite:\(directory.path)/events.sqlite"
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        let tokens = directory.path + "/tokens.txt"
        let nfc = "jos\u{E9} m:1/ü", nfd = "jose\u{301} m:1/u\u{308}"
        // Not a path-safe id ('/'): a token file round-trips it, but no path can name it.
        _ = try Self.token(["--role", "user", "--user", nfd], tokens: tokens)
        let typedNFD = "jose\u{301} #1: 日本"
        let josé = try Self.token(["--role", "user", "--user", typedNFD], tokens: tokens)
        let app = try Self.token(["--role", "app"], tokens: tokens)
        let file = try String(contentsOfFile: tokens, encoding: .utf8)
        #expect(file.contains("user:jos%C3%A9%20m%3A1%2F%C3%BC ") && file.contains("user:jos%C3%A9%20%231%3A%20%E6%97%A5%E6%9C%AC "), "stored in NFC, percent-encoded: \(file)")
        let parsed = try TokenFile.load(path: tokens)
        #expect(parsed.entries.compactMap(\.user).map { Array($0.utf8) } == [Array(nfc.utf8), Array("jos\u{E9} #1: 日本".utf8)])

        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", store])
        defer { server.killIfRunning() }
        try FreePort.waitUntilListening(port, process: server)
        let base = "http://127.0.0.1:\(port)"
        let auth = ["Authorization": "Bearer \(josé)", "Content-Type": "application/json"]
        let composed = PathSegments.encoded("jos\u{E9} #1: 日本"), decomposed = PathSegments.encoded(typedNFD)
        #expect(composed != decomposed)
        let first = try Curl.request("PUT", base + "/v1/users/\(decomposed)/favorites/L1", headers: auth, body: Self.summary)
        #expect(first.status == 201, "\(first)")
        let second = try Curl.request("PUT", base + "/v1/users/\(composed)/favorites/L2", headers: auth, body: Self.summary)
        #expect(second.status == 201, "\(second)")
        for spelling in [composed, decomposed] {
            let favorites = try Curl.request("GET", base + "/v1/users/\(spelling)/favorites", headers: auth)
            #expect(favorites.status == 200 && favorites.body.contains("\"L1\"") && favorites.body.contains("\"L2\""), "one user: \(favorites)")
        }
        // The back end sees one user, in NFC.
        let viaApp = try Curl.request("GET", base + "/v1/users/\(composed)/favorites", headers: ["Authorization": "Bearer \(app)"])
        #expect(viaApp.body.contains("\"L1\"") && viaApp.body.contains("\"L2\""), "\(viaApp)")
        // A near spelling is another user.
        let near = try Curl.request("GET", base + "/v1/users/\(PathSegments.encoded("jose #1: 日本"))/favorites", headers: auth)
        #expect(near.status == 403, "\(near)")
        server.send(SIGTERM)
        #expect(try server.finish().status == 0)
    }
}
