import Foundation
import StorePostgres
import Testing
import TestSupport

/// `evtool serve --read-store URL` over a real primary and hot standby of the test's own,
/// driven with curl: every GET after an acknowledged write sees it (30 rounds), a standby whose
/// replay is paused and one that is stopped still answer correctly (the store answers), and
/// `/metrics` says who answered.
@Suite("evtool serve: reads from a PostgreSQL standby (--read-store)", .serialized)
struct ServeReadStoreTests {
    static let summary = #"{"name":"Show","venue":"Hall","localDateTime":"2026-12-05 19:30:00","category":"Music"}"#

    /// The listings of `user`'s favorites, as the server answers them.
    static func favorites(_ base: String, _ user: String) throws -> (status: Int, listings: [String]) {
        let response = try Curl.request("GET", base + "/v1/users/\(user)/favorites")
        let object = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        let items = object?["items"] as? [[String: Any]] ?? []
        return (response.status, items.compactMap { $0["listingID"] as? String })
    }

    /// `evtool_read_store_reads_total{source="…"}` from `/metrics`.
    static func served(_ base: String) throws -> [String: Int] {
        let text = try Curl.request("GET", base + "/metrics").body
        var counts: [String: Int] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("evtool_read_store_reads_total{source=\"") {
            let source = line.dropFirst("evtool_read_store_reads_total{source=\"".count).prefix { $0 != "\"" }
            counts[String(source)] = Int(line.split(separator: " ").last ?? "")
        }
        return counts
    }

    @Test("30 write-then-read rounds see every write; a paused replay and a stopped standby still answer with it, from the store")
    func readYourWritesOverHTTP() throws {
        let pair = try ReplicaPair.start()
        defer { pair.remove() }
        let store = pair.primary.url, standby = pair.standby.url
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        try pair.waitForStandbyStore()
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", store, "--read-store", standby])
        defer { server.killIfRunning() }
        try FreePort.waitUntilListening(port, process: server)
        let base = "http://127.0.0.1:\(port)"

        var expected: [String] = []
        for round in 0..<30 {
            let listing = "L\(round)"
            let put = try Curl.request("PUT", base + "/v1/users/ada/favorites/\(listing)", headers: ["Content-Type": "application/json"], body: Self.summary)
            #expect(put.status == 201, "\(put)")
            expected.append(listing)
            if round % 5 == 4 {
                let removed = expected.removeFirst()
                let delete = try Curl.request("DELETE", base + "/v1/users/ada/favorites/\(removed)")
                #expect(delete.status == 201 || delete.status == 200, "\(delete)")
            }
            let (status, listings) = try Self.favorites(base, "ada")
            #expect(status == 200 && Set(listings) == Set(expected), "after write \(round): \(listings)")
            let history = try Curl.request("GET", base + "/v1/users/ada/history?limit=1000")
            #expect(history.status == 200 && history.body.contains("\"listingID\":\"\(listing)\""), "history after write \(round)")
        }
        var served = try Self.served(base)
        #expect((served["replica"] ?? 0) + (served["replica-after-waiting"] ?? 0) >= 40, "the standby answered most reads: \(served)")

        // Replay paused: the read waits its 0.5 s, then the store answers, with the write.
        try ReplicaPair.psql(pair.standby, "SELECT pg_wal_replay_pause()")
        let fromStore = served["primary"] ?? 0
        #expect(try Curl.request("PUT", base + "/v1/users/ada/favorites/P1", headers: ["Content-Type": "application/json"], body: Self.summary).status == 201)
        var (status, listings) = try Self.favorites(base, "ada")
        #expect(status == 200 && listings.contains("P1"), "\(listings)")
        served = try Self.served(base)
        #expect((served["primary"] ?? 0) > fromStore, "\(served)")
        try ReplicaPair.psql(pair.standby, "SELECT pg_wal_replay_resume()")

        // The standby stopped: the store answers at once, with the write.
        try pair.standby.crash()
        #expect(try Curl.request("PUT", base + "/v1/users/ada/favorites/S1", headers: ["Content-Type": "application/json"], body: Self.summary).status == 201)
        (status, listings) = try Self.favorites(base, "ada")
        #expect(status == 200 && listings.contains("S1") && listings.contains("P1"), "\(listings)")
        let history = try Curl.request("GET", base + "/v1/users/ada/history?limit=1000")
        #expect(history.status == 200 && history.body.contains("\"listingID\":\"S1\""), "\(history)")

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(2_000))")
        #expect(ended.errors.contains("serve: reading views, history and the log from \(standby)?schema=evtool, read-your-writes"), "\(ended.errors.suffix(2_000))")
    }
}
