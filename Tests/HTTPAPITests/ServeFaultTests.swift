import Foundation
import Testing
import TestSupport

/// The server over a store that goes away: a PostgreSQL restart under `evtool serve`, or a
/// SQLite file another process keeps locked, gives 503 with Retry-After (naming neither the
/// server's address nor the file: those go to the server's log), then the same server process
/// recovers when the store is back.
@Suite(.serialized)
struct ServeFaultTests {
    static let json = ["Content-Type": "application/json"]
    static let summary = #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#

    /// `evtool serve --no-auth` on `store` (and `options`), listening: the process and its base URL.
    static func serve(_ store: String, _ options: String...) throws -> (Processes.Running, String) {
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", store] + options)
        try FreePort.waitUntilListening(port, process: server)
        return (server, "http://127.0.0.1:\(port)")
    }

    @Test func postgresRestartGives503ThenRecovers() throws {
        let postgres = try PrivatePostgres.start()
        defer { postgres.remove() }
        let (server, base) = try Self.serve(postgres.url)
        defer { server.killIfRunning() }
        let (json, summary) = (Self.json, Self.summary)

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
        #expect(!write.body.contains("127.0.0.1") && !write.body.contains(postgres.url), "no server address in a problem: \(write)")

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
        #expect(ended.status == 0, "\(ended)")
        #expect(ended.errors.contains("authentication is OFF (--no-auth)"), "--no-auth says so at start: \(ended.errors.prefix(500))")
        #expect(ended.errors.split(separator: "\n").contains { $0.hasPrefix("PUT /v1/users/ada/favorites/L2 503 ") && $0.contains("127.0.0.1") },
                "the server's log line of the 503 has the store's reason: \(ended.errors.suffix(2_000))")
    }

    /// SQLite's file locked by another process for longer than the server waits (its busy
    /// timeout, 10 s, for the group commit and again for the append alone): the write is a 503
    /// with Retry-After that names no file, reads go on (WAL), nothing is recorded, and the
    /// retry with the same key records once when the lock is gone.
    @Test func sqliteLockedByAnotherProcessGives503ThenRecovers() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.path + "/locked.sqlite"
        #expect(try Processes.run(Processes.evtool, ["init", "--store", path]).status == 0)
        let (server, base) = try Self.serve(path)
        defer { server.killIfRunning() }
        let (json, summary) = (Self.json, Self.summary)
        #expect(try Curl.request("PUT", base + "/v1/users/ada/favorites/L1", headers: json, body: summary).status == 201)
        // Read once before the lock: the views catch up to the head here (a catch-up writes),
        // so the read under the lock below needs no write.
        #expect(try Curl.request("GET", base + "/v1/users/ada/favorites").body.contains("L1"))

        // Another process takes the write lock and holds it until it is killed after the 503
        // (at most 120 s: far beyond the server's two waits of 10 s, however loaded the machine;
        // it says when it has the lock).
        let marker = directory.path + "/locked"
        let holder = try Processes.start("/usr/bin/python3", ["-c", """
            import sqlite3, sys, time
            connection = sqlite3.connect(sys.argv[1], isolation_level=None)
            connection.execute("BEGIN EXCLUSIVE")
            open(sys.argv[2], "w").close()
            time.sleep(120)
            connection.execute("ROLLBACK")
            """, path, marker])
        defer { holder.killIfRunning() }
        let deadline = Date().addingTimeInterval(20)
        while !FileManager.default.fileExists(atPath: marker), Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(FileManager.default.fileExists(atPath: marker), "the other process holds the lock")

        let write = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json.merging(["Idempotency-Key": "locked"]) { $1 }, body: summary, maxTime: 110)
        #expect(write.status == 503 && write.headers["retry-after"] == "1" && write.body.contains(#""type":"/problems/unavailable""#), "\(write)")
        #expect(!write.body.contains(path) && !write.body.contains("sqlite"), "the problem names no file: \(write)")
        let read = try Curl.request("GET", base + "/v1/users/ada/favorites")
        #expect(read.status == 200 && read.body.contains("L1") && !read.body.contains("L2"), "reads go on while the file is locked, and the 503 recorded nothing: \(read)")

        holder.send(SIGKILL)   // its lock goes with it
        _ = try holder.finish()
        let retried = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json.merging(["Idempotency-Key": "locked"]) { $1 }, body: summary)
        #expect(retried.status == 201, "the retry with the same key records: \(retried)")
        let again = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json.merging(["Idempotency-Key": "locked"]) { $1 }, body: summary)
        #expect(again.status == 201 && again.headers["idempotent-replayed"] == "true", "and only once: \(again)")

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended)")
        #expect(ended.errors.split(separator: "\n").contains { $0.hasPrefix("PUT /v1/users/ada/favorites/L2 503 ") && $0.contains("locked by another process") },
                "the server's log line of the 503 has the store's reason: \(ended.errors.suffix(2_000))")
        let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", path])
        #expect(stats.status == 0 && stats.output.contains(#""events":2"#), "two favorites, nothing else: \(stats)")
    }

    @Test func lostRacesGive409OnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try lostRacesGive409(store: "sqlite:\(directory.path)/races.sqlite")
    }

    @Test func lostRacesGive409OnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        try lostRacesGive409(store: url + (url.contains("?") ? "&" : "?") + "schema=" + schema)
    }

    /// A write whose every try loses the race to another writer of the same user (here a
    /// command in another process, between the server's decision on its cached state and its
    /// append; `--write-attempts 1` makes one lost race the last) is a 409 that records
    /// nothing; the next write decides on the stream as it now is.
    func lostRacesGive409(store: String) throws {
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        let (server, base) = try Self.serve(store, "--write-attempts", "1")
        defer { server.killIfRunning() }
        let (json, summary) = (Self.json, Self.summary)
        #expect(try Curl.request("PUT", base + "/v1/users/ada/favorites/L1", headers: json, body: summary).status == 201)
        let other = try Processes.run(Processes.evtool, ["favorite", "--user", "ada", "--listing", "X1", "--name", "N", "--venue", "V",
                                                         "--date", "2027-01-01T20:00:00Z", "--category", "music", "--store", store])
        #expect(other.status == 0, "\(other)")

        let lost = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json, body: summary)
        #expect(lost.status == 409 && lost.headers["content-type"] == "application/problem+json"
                && lost.body.contains(#""type":"/problems/conflict""#) && lost.body.contains("gave up after 1 attempt,"), "\(lost)")
        let favorites = try Curl.request("GET", base + "/v1/users/ada/favorites")
        #expect(favorites.status == 200 && favorites.body.contains("X1") && !favorites.body.contains("L2") && favorites.headers["etag"] == #""2""#,
                "the 409 recorded nothing, and reads see the other writer's favorite: \(favorites)")
        let next = try Curl.request("PUT", base + "/v1/users/ada/favorites/L2", headers: json, body: summary)
        #expect(next.status == 201 && next.headers["etag"] == #""3""#, "the next write decides on the stream as it is now: \(next)")
        let metrics = try Curl.request("GET", base + "/metrics")
        #expect(metrics.body.contains(#"evtool_http_requests_total{route="addFavorite",status="409"} 1"#) && metrics.body.contains("evtool_conflicts_total 1"), "\(metrics.body)")

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended)")
    }
}
