import Foundation
import Testing
import TestSupport

/// `GET /v1/users/{user}/events`: one user's events as Server-Sent Events for the `app` role,
/// over raw sockets against `evtool serve` on both stores: `id:` the user's stream version,
/// only that user's events, resuming after `Last-Event-ID` with every later event once and none
/// twice (across a server killed with SIGKILL and events recorded while it was down), events
/// recorded while a stream is open arrive on it, heartbeats while it is quiet.
@Suite(.serialized)
struct ServeUserEventsTests {
    enum Kind: String, CaseIterable { case sqlite, postgres }

    static let summary = #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#

    /// The `id:` lines of an event stream's body, in order (each event is one chunk).
    static func ids(_ text: String) -> [Int] {
        text.replacingOccurrences(of: "\r\n", with: "\n").components(separatedBy: "\n").compactMap { $0.hasPrefix("id: ") ? Int($0.dropFirst(4)) : nil }
    }

    /// A stream request for `user`, resuming after `last` when given.
    static func streamRequest(_ user: String, token: String, last: String? = nil) -> [UInt8] {
        var text = "GET /v1/users/\(user)/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(token)\r\n"
        if let last { text += "Last-Event-ID: \(last)\r\n" }
        return Array((text + "\r\n").utf8)
    }

    @Test("a user's event stream: ids are stream versions, resumes after Last-Event-ID across a SIGKILL, live events, heartbeats", arguments: Kind.allCases)
    func userStream(kind: Kind) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var store = "sqlite:\(directory.path)/events.sqlite"
        if kind == .postgres {
            let url = try TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        }
        defer {
            if kind == .postgres, let range = store.range(of: "schema=") {
                let url = String(store[..<range.lowerBound].dropLast())
                TestStores.dropPostgres(url: url, schema: String(store[range.upperBound...]))
            }
        }
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        let tokens = directory.path + "/tokens.txt"
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "app", "--tokens", tokens, "--name", "phone"])
        #expect(made.status == 0, "\(made)")
        let app = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try FreePort.find()
        func start() throws -> Processes.Running {
            let server = try Processes.start(Processes.evtool, ["serve", "--tokens", tokens, "--heartbeat", "1", "--listen", "127.0.0.1:\(port)", "--store", store])
            try FreePort.waitUntilListening(port, process: server)
            return server
        }
        var server = try start()
        defer { server.killIfRunning() }
        let base = "http://127.0.0.1:\(port)"
        let auth = ["Authorization": "Bearer \(app)", "Content-Type": "application/json"]
        for listing in ["L1", "L2"] {
            #expect(try Curl.request("PUT", base + "/v1/users/ada/favorites/\(listing)", headers: auth, body: Self.summary).status == 201)
        }
        #expect(try Curl.request("PUT", base + "/v1/users/bob/favorites/L9", headers: auth, body: Self.summary).status == 201)
        #expect(try Curl.request("DELETE", base + "/v1/users/ada/favorites/L1", headers: auth).status == 201)

        // From the start: ada's three events, ids 1, 2, 3, none of bob's; a heartbeat while quiet.
        let whole = try RawHTTP.exchange(port: port, Self.streamRequest("ada", token: app), seconds: 2.5)
        #expect(whole.statuses == [200] && whole.text.contains("Content-Type: text/event-stream"), "\(whole)")
        #expect(Self.ids(whole.text) == [1, 2, 3], "\(whole)")
        #expect(whole.text.contains("event: Favorited\ndata: {") && whole.text.contains("event: Unfavorited\n"), "\(whole)")
        #expect(!whole.text.contains("L9") && !whole.text.contains(#""stream":"bob""#), "only ada's events: \(whole)")
        #expect(whole.text.contains(": heartbeat\n\n"), "a heartbeat after a quiet second: \(whole)")

        // Resuming after 2: only 3.
        let resumed = try RawHTTP.exchange(port: port, Self.streamRequest("ada", token: app, last: "2"), seconds: 1.2)
        #expect(Self.ids(resumed.text) == [3], "\(resumed)")

        // Live: an event recorded while the stream is open arrives on it.
        let liveStarted = Date()
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.7) { _ = try? Curl.request("PUT", base + "/v1/users/ada/favorites/L3", headers: auth, body: Self.summary) }
        let live = try RawHTTP.exchange(port: port, Self.streamRequest("ada", token: app, last: "3"), seconds: 2.5)
        #expect(Self.ids(live.text) == [4], "the live event, once: \(live) after \(Date().timeIntervalSince(liveStarted)) s")

        // SIGKILL the server, record two events with the command line while it is down, restart:
        // resuming after 4 gives 5 and 6, once each.
        server.send(SIGKILL)
        _ = try server.finish()
        for listing in ["L4", "L5"] {
            let recorded = try Processes.run(Processes.evtool, ["favorite", "--user", "ada", "--listing", listing, "--name", "Wicked", "--venue", "Pantages",
                                                                "--date", "2026-12-06 19:30:00", "--category", "Arts & Theatre", "--store", store])
            #expect(recorded.status == 0, "\(recorded)")
        }
        server = try start()
        let afterRestart = try RawHTTP.exchange(port: port, Self.streamRequest("ada", token: app, last: "4"), seconds: 1.5)
        #expect(Self.ids(afterRestart.text) == [5, 6], "\(afterRestart)")

        // Refusals: no token (401), a Last-Event-ID that is no version (400), the log's stream is still not the app's (403).
        let anonymous = try RawHTTP.exchange(port: port, Array("GET /v1/users/ada/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(anonymous.statuses == [401], "\(anonymous)")
        let malformed = try RawHTTP.exchange(port: port, Array("GET /v1/users/ada/events HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(app)\r\nLast-Event-ID: x7\r\n\r\n".utf8))
        #expect(malformed.statuses == [400] && malformed.text.contains(#""field":"Last-Event-ID""#), "\(malformed)")
        let log = try RawHTTP.exchange(port: port, Array("GET /v1/log/stream HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Bearer \(app)\r\n\r\n".utf8))
        #expect(log.statuses == [403], "\(log)")

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
    }
}
