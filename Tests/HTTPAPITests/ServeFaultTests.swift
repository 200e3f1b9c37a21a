import Foundation
import Testing
import TestSupport

/// The server over a store that goes away: a PostgreSQL restart under `evtool serve` gives
/// 503 with Retry-After (and no store text beyond the store's own message), then the same
/// server process recovers when the database is back.
@Suite(.serialized)
struct ServeFaultTests {
    @Test func postgresRestartGives503ThenRecovers() throws {
        let postgres = try PrivatePostgres.start()
        defer { postgres.remove() }
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", postgres.url])
        var stopped = false
        defer { if !stopped { server.send(SIGKILL); _ = try? server.finish() } }
        try FreePort.waitUntilListening(port, process: server)
        let base = "http://127.0.0.1:\(port)"
        let json = ["Content-Type": "application/json"]
        let summary = #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#

        let first = try Curl.request("PUT", base + "/v1/users/ada/favorites/L1", headers: json, body: summary)
        #expect(first.status == 201, "\(first)")

        try postgres.crash()
        let ready = try Curl.request("GET", base + "/readyz")
        #expect(ready.status == 503 && ready.headers["retry-after"] == "1", "\(ready)")
        #expect(ready.headers["content-type"] == "application/problem+json" && ready.body.contains(#""type":"/problems/unavailable""#), "\(ready)")
        let write = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json.merging(["Idempotency-Key": "during"]) { $1 }, body: summary)
        #expect(write.status == 503 && write.headers["retry-after"] == "1", "\(write)")
        let read = try Curl.request("GET", base + "/v1/users/ada/favorites")
        #expect(read.status == 503, "\(read)")
        #expect(!read.body.contains("SELECT") && !read.body.contains("INSERT"), "no SQL text in a problem: \(read)")

        try postgres.restart()
        var recovered = false
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if try Curl.request("GET", base + "/readyz").status == 200 { recovered = true; break }
            Thread.sleep(forTimeInterval: 0.1)
        }
        #expect(recovered, "the same server answers again once PostgreSQL is back")
        let retried = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json.merging(["Idempotency-Key": "during"]) { $1 }, body: summary)
        #expect(retried.status == 201, "the retry with the same key records once: \(retried)")
        let favorites = try Curl.request("GET", base + "/v1/users/ada/favorites")
        #expect(favorites.status == 200 && favorites.body.contains("L1") && favorites.body.contains("L2"), "\(favorites)")

        server.send(SIGTERM)
        let ended = try server.finish()
        stopped = true
        #expect(ended.status == 0, "\(ended)")
        #expect(ended.errors.contains("authentication is OFF (--no-auth)"), "--no-auth says so at start: \(ended.errors.prefix(500))")
    }
}
