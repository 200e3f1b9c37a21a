import Foundation
import Testing
import TestSupport

/// The server's edge against requests a client library would not send: raw bytes over a
/// socket to `evtool serve` with tokens (docs/reference/http.md, "What the server refuses").
@Suite(.serialized)
struct ServeEdgeTests {
    static let favorite = #"{"name":"a","venue":"v","localDateTime":"2026-12-05 19:30:00","category":"Music"}"#

    /// A server on a new SQLite store with an app and an auditor token; `body` runs against it
    /// and the server is stopped cleanly after.
    func withServer(_ body: (UInt16, _ app: String, _ auditor: String, _ store: String) throws -> Void) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let tokens = directory.path + "/tokens"
        let store = "sqlite:\(directory.path)/edge.sqlite"
        let app = try Processes.run(Processes.evtool, ["token", "create", "--role", "app", "--tokens", tokens])
        let auditor = try Processes.run(Processes.evtool, ["token", "create", "--role", "auditor", "--tokens", tokens])
        let appToken = try #require(app.output.split(separator: "\n").last.map(String.init))
        let auditorToken = try #require(auditor.output.split(separator: "\n").last.map(String.init))
        let port = try LocalPort.free()
        let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--listen", "127.0.0.1:\(port)", "--store", store])
        try LocalPort.waitUntilListening(port, process: server)
        defer { server.killIfRunning() }
        try body(port, appToken, auditorToken, store)
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
        #expect(ended.errors.contains("finishing 0 requests in flight"), "\(ended.errors.suffix(1_000))")
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test("a Content-Length beyond any body (2^63 and more) is 413 at once, before any body is read")
    func hugeContentLength() throws {
        try withServer { port, app, _, store in
            for length in ["9223372036854775807", "9223372036854775808", "18446744073709551615"] {
                let answer = try RawHTTP.exchange(port: port, Self.bytes("PUT /v1/users/big/favorites/L1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\nContent-Length: \(length)\r\n\r\n" + String(repeating: "A", count: 4_096)))
                #expect(answer.statuses == [413] && answer.closed, "\(length): \(answer)")
                #expect(answer.text.contains("/problems/body-too-large") && answer.text.contains("has \(length) bytes"), "\(length): \(answer)")
            }
            let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
            #expect(stats.output.contains(#""events":0"#), "\(stats)")
        }
    }

    @Test("HEAD on an event stream is 405 with Allow: GET, and the next request on the connection is framed right; HEAD on other reads has no body; 405 names HEAD beside GET")
    func headAndAllow() throws {
        try withServer { port, app, auditor, _ in
            for (path, token) in [("/v1/log/stream", auditor), ("/v1/users/ada/events", app)] {
                let answer = try RawHTTP.exchange(port: port, Self.bytes("HEAD \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                // A HEAD's answer has no body, whatever its Content-Length says: the next answer
                // follows its head at once.
                let head = try #require(answer.text.range(of: "\r\n\r\n"), "\(path): \(answer)")
                #expect(answer.text.hasPrefix("HTTP/1.1 405") && answer.text[..<head.lowerBound].contains("\r\nAllow: GET\r\n"), "\(path): \(answer)")
                #expect(answer.text[head.upperBound...].hasPrefix("HTTP/1.1 200") && answer.closed, "\(path): \(answer)")
            }
            let head = try RawHTTP.exchange(port: port, Self.bytes("HEAD /v1/users/ada/favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            #expect(head.text.hasPrefix("HTTP/1.1 200"), "\(head)")
            // The head's Content-Length is the GET's, and no body follows it: the next answer does.
            let second = try #require(head.text.range(of: "\r\n\r\n")).upperBound
            #expect(head.text[second...].hasPrefix("HTTP/1.1 200"), "\(head)")
            let post = try RawHTTP.exchange(port: port, Self.bytes("POST /v1/users/ada/favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
            #expect(post.statuses == [405] && post.text.contains("\r\nAllow: GET, HEAD\r\n"), "\(post)")
        }
    }

    @Test("a single-valued header sent twice is 400 naming it, never joined into one value; a list header may repeat")
    func repeatedHeaders() throws {
        try withServer { port, app, _, store in
            let search = #"{"keyword":"Hamilton","location":"LA"}"#
            for header in ["Idempotency-Key: k1", "X-Source: ios", "X-Correlation-ID: c1", "Content-Type: application/json", "Authorization: Bearer \(app)"] {
                let head = "POST /v1/users/d/searches HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\n"
                    + (header.hasPrefix("Authorization") || header.hasPrefix("Content-Type") ? "" : header + "\r\n")
                    + header + "\r\nContent-Length: \(search.utf8.count)\r\nConnection: close\r\n\r\n" + search
                let answer = try RawHTTP.exchange(port: port, Self.bytes(head))
                let name = String(header.prefix { $0 != ":" })
                #expect(answer.statuses == [400], "\(name): \(answer)")
                #expect(answer.text.contains("the header '\(name)' is sent more than once"), "\(name): \(answer)")
            }
            let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
            #expect(stats.output.contains(#""events":0"#), "nothing was recorded: \(stats)")
            // If-None-Match is a list: two fields are one list.
            let read = try RawHTTP.exchange(port: port, Self.bytes("GET /v1/users/d/favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nIf-None-Match: \"a\"\r\nIf-None-Match: \"b\"\r\nConnection: close\r\n\r\n"))
            #expect(read.statuses == [200], "\(read)")
        }
    }

    @Test("Expect: 100-continue gets the head's refusal (401, 403, 404, 405) instead of 100 Continue; a sound head gets 100 and its answer")
    func expectContinue() throws {
        try withServer { port, app, auditor, _ in
            let put = "PUT /v1/users/x/favorites/L1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(Self.favorite.utf8.count)\r\n"
            for (what, head, status) in [("no token", put, 401), ("an auditor's token", put + "Authorization: Bearer \(auditor)\r\n", 403),
                                         ("no such path", put.replacingOccurrences(of: "/favorites/L1", with: "/nothing") + "Authorization: Bearer \(app)\r\n", 404),
                                         ("a method the path does not take", put.replacingOccurrences(of: "PUT", with: "POST") + "Authorization: Bearer \(app)\r\n", 405)] {
                let answer = try RawHTTP.exchange(port: port, Self.bytes(head + "\r\n"), seconds: 2)
                #expect(answer.statuses == [status] && !answer.text.contains("100 Continue"), "\(what): \(answer)")
            }
            let sound = try RawHTTP.exchange(port: port, Self.bytes(put + "Authorization: Bearer \(app)\r\nConnection: close\r\n\r\n" + Self.favorite))
            #expect(sound.text.hasPrefix("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 201"), "\(sound)")
        }
    }

    @Test("a read names users by the rule a write holds new ids to: only spaces, or a space at either end, is 422 on every user route")
    func paddedUserIDsOnReads() throws {
        try withServer { port, app, _, _ in
            for (user, rule) in [("%20", "be only spaces"), ("%C2%A0", "be only spaces"), ("%E3%80%80", "be only spaces"), ("a%20", "begin or end with a space")] {
                for path in ["favorites", "recent-searches", "recently-viewed", "listings/L1", "events"] {
                    let answer = try RawHTTP.exchange(port: port, Self.bytes("GET /v1/users/\(user)/\(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nConnection: close\r\n\r\n"))
                    #expect(answer.statuses == [422] && answer.text.contains("user id must not \(rule)"), "\(user) \(path): \(answer)")
                }
            }
        }
    }

    @Test("a route that takes no body refuses one (400) and does nothing; the routes with bodies take theirs")
    func bodyWhereNoneIsTaken() throws {
        try withServer { port, app, _, store in
            let put = try RawHTTP.exchange(port: port, Self.bytes("PUT /v1/users/ada/favorites/L1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\nContent-Length: \(Self.favorite.utf8.count)\r\nConnection: close\r\n\r\n" + Self.favorite))
            #expect(put.statuses == [201], "\(put)")
            for (method, path) in [("DELETE", "/v1/users/ada/favorites/L1"), ("GET", "/v1/users/ada/favorites")] {
                let answer = try RawHTTP.exchange(port: port, Self.bytes("\(method) \(path) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\nContent-Length: 7\r\nConnection: close\r\n\r\n{\"x\":1}"))
                #expect(answer.statuses == [400] && answer.text.contains("takes no body; send none (this one has 7 bytes)"), "\(method) \(path): \(answer)")
            }
            let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
            #expect(stats.output.contains(#""events":1"#), "only the favorite was recorded: \(stats)")
        }
    }

    @Test("a header the API reads that is not UTF-8 text is 400 naming it and records nothing; another header's bytes are left alone; If-None-Match on a write is 400")
    func headerText() throws {
        try withServer { port, app, _, store in
            let favorite = Array(Self.favorite.utf8)
            func put(_ header: [UInt8], listing: String = "L1") throws -> RawHTTP.Exchange {
                let head = Self.bytes("PUT /v1/users/odd/favorites/\(listing) HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\nContent-Length: \(favorite.count)\r\nConnection: close\r\n")
                return try RawHTTP.exchange(port: port, head + header + Self.bytes("\r\n\r\n") + favorite)
            }
            for name in ["Idempotency-Key", "X-Source", "X-Correlation-ID"] {
                let answer = try put(Self.bytes("\(name): caf") + [0xE9])
                #expect(answer.statuses == [400] && answer.text.contains("the header '\(name)' is not UTF-8 text"), "\(name): \(answer)")
            }
            let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
            #expect(stats.output.contains(#""events":0"#), "nothing was recorded: \(stats)")
            let agent = try put(Self.bytes("User-Agent: caf") + [0xE9])
            #expect(agent.statuses == [201], "a header the API does not read is left alone: \(agent)")
            let conditional = try put(Self.bytes("If-None-Match: *"), listing: "L2")
            #expect(conditional.statuses == [400] && conditional.text.contains("If-None-Match is not taken on a write"), "\(conditional)")
            let stale = try put(Self.bytes("If-Match: W/\"1\""), listing: "L3")
            #expect(stale.statuses == [412] && stale.text.contains("send the ETag of a read: now \\\"1\\\""), "\(stale)")
        }
    }

    @Test("a request target in absolute form (RFC 9112 §3.2.2) is served as its path; one with user information or no host is refused")
    func absoluteForm() throws {
        try withServer { port, app, _, _ in
            let put = try RawHTTP.exchange(port: port, Self.bytes("PUT http://events.example/v1/users/abs/favorites/L1 HTTP/1.1\r\nHost: events.example\r\nAuthorization: Bearer \(app)\r\nContent-Type: application/json\r\nContent-Length: \(Self.favorite.utf8.count)\r\nConnection: close\r\n\r\n" + Self.favorite))
            #expect(put.statuses == [201], "\(put)")
            let read = try RawHTTP.exchange(port: port, Self.bytes("GET HTTP://events.example:8080/v1/users/abs/favorites HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(app)\r\nConnection: close\r\n\r\n"))
            #expect(read.statuses == [200] && read.text.contains(#""listingID":"L1""#), "\(read)")
            let health = try RawHTTP.exchange(port: port, Self.bytes("GET http://events.example HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            #expect(health.statuses == [404], "the root path: \(health)")
            for target in ["http://me@events.example/healthz", "http:///healthz"] {
                let refused = try RawHTTP.exchange(port: port, Self.bytes("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
                #expect(refused.statuses == [400], "\(target): \(refused)")
            }
        }
    }
}
