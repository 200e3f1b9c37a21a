import Foundation
import Testing
import TestSupport

/// One identity on every face of `evtool serve` (issue 31, item 4): `josé` in NFC
/// (`jos%C3%A9`) and in NFD (`jose%CC%81`) in a path, `café-7` in a path or a body, and a
/// request id in either form in `Idempotency-Key` are one user, one listing and one request on
/// every route, with the server's view memory on, on an SQLite file and on PostgreSQL; ids
/// holding invisible characters are refused on every route that takes one, and nothing is
/// recorded for them.
@Suite("evtool serve: one identity for user, listing and request ids", .serialized)
struct ServeIdentityTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let nfc = "jos\u{E9}"
    static let users = ["jose%CC%81", "jos%C3%A9"]               // NFD first: it fills the view memory first
    static let listings = ["cafe%CC%81-7", "caf%C3%A9-7"]
    static let cafe = "caf\u{E9}-7"
    static let json = ["Content-Type": "application/json"]
    static let summary = #"{"name":"Hamilton","venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#
    /// Details whose listing id is `café-7` in NFD (a JSON escape, so the bytes are NFD after decoding).
    static let details = #"{"listingID":"cafe\u0301-7","info":{"name":"Wicked","artistsOrTeams":[],"venue":"Gershwin","category":"Arts & Theatre","genres":[]},"upcomingEvents":[]}"#

    static func holds(_ text: String, _ part: String) -> Bool { Data(text.utf8).range(of: Data(part.utf8)) != nil }

    /// A store of `kind` for `evtool serve` and the CLI, and its cleanup.
    static func store(_ kind: Kind, _ directory: TemporaryDirectory) throws -> (String, () -> Void) {
        switch kind {
        case .sqlite:
            return ("sqlite:\(directory.path)/identity.sqlite", {})
        case .postgres:
            let url = try TestStores.postgresURL()
            let schema = TestStores.freshSchema()
            let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
            #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
            return (store, { TestStores.dropPostgres(url: url, schema: schema) })
        }
    }

    @Test("josé in NFC and NFD is one user on every route, café-7 one listing, a request id one request; with the view memory on", arguments: Kind.allCases)
    func oneIdentityOnEveryRoute(kind: Kind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let (store, cleanup) = try Self.store(kind, directory); defer { cleanup() }
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", store,
                                                            "--view-memory", "67108864"])
        defer { if server.isRunning { server.send(SIGKILL) } }
        try FreePort.waitUntilListening(port, process: server)
        let base = "http://127.0.0.1:\(port)"
        func call(_ method: String, _ path: String, headers: [String: String] = [:], body: String? = nil) throws -> Curl.Response {
            try Curl.request(method, base + path, headers: headers, body: body)
        }
        /// Every spelling of the user (NFD first) answers `status`, `etag` and one body.
        func same(_ path: (String) -> String, etag: String?, _ check: (String) -> Bool) throws {
            var bodies: [String] = []
            for user in Self.users {
                let response = try call("GET", path(user))
                #expect(response.status == 200 && response.headers["etag"] == etag && check(response.body), "\(path(user)): \(response)")
                bodies.append(response.body)
            }
            #expect(Set(bodies.map { Data($0.utf8) }).count == 1, "both spellings answer the same bytes: \(bodies)")
        }

        // The issue's case: written under NFC, read under NFD (filling the memory), then under NFC.
        var response = try call("PUT", "/v1/users/jos%C3%A9/favorites/LD", headers: Self.json, body: Self.summary)
        #expect(response.status == 201 && response.headers["etag"] == "\"1\"", "\(response)")
        try same({ "/v1/users/\($0)/favorites" }, etag: "\"1\"") { $0.contains(#""listingID":"LD""#) }

        // A write under NFD goes to the same stream; its answer names the user as recorded (NFC).
        response = try call("POST", "/v1/users/jose%CC%81/searches", headers: Self.json.merging(["Idempotency-Key": "cle\u{301}-1"]) { $1 },
                            body: #"{"keyword":"Hamilton","location":"Los Angeles"}"#)
        #expect(response.status == 201 && response.headers["etag"] == "\"2\"" && Self.holds(response.body, #""user":"\#(Self.nfc)""#), "\(response)")
        #expect(!Self.holds(response.body, "jose\u{301}"), "the answer names the NFC id: \(response)")
        // The same request id in NFC, under the other spelling of the user: one request, replayed.
        response = try call("POST", "/v1/users/jos%C3%A9/searches", headers: Self.json.merging(["Idempotency-Key": "cl\u{E9}-1"]) { $1 },
                            body: #"{"keyword":"Hamilton","location":"Los Angeles"}"#)
        #expect(response.status == 201 && response.headers["idempotent-replayed"] == "true" && response.headers["etag"] == "\"2\"", "\(response)")
        try same({ "/v1/users/\($0)/recent-searches" }, etag: "\"2\"") { $0.contains("Hamilton") }

        // A view whose body names café-7 in NFD; read under either spelling of user and listing.
        response = try call("POST", "/v1/users/jose%CC%81/views", headers: Self.json, body: Self.details)
        #expect(response.status == 201 && response.headers["etag"] == "\"3\"", "\(response)")
        try same({ "/v1/users/\($0)/recently-viewed" }, etag: "\"3\"") { Self.holds($0, Self.cafe) && $0.contains("Wicked") }
        var detailBodies = Set<Data>()
        for listing in Self.listings {
            response = try call("GET", "/v1/listings/\(listing)/details")
            #expect(response.status == 200 && response.body.contains("Wicked"), "\(listing): \(response)")
            detailBodies.insert(Data(response.body.utf8))
            try same({ "/v1/users/\($0)/listings/\(listing)" }, etag: "\"3\"") { $0.contains(#""favorite":false"#) && $0.contains("Wicked") }
        }
        #expect(detailBodies.count == 1, "both spellings of the listing answer the same bytes")

        // If-Match with one version (NFC user, NFD listing), `*` (NFD user: read first), then a removal.
        response = try call("PUT", "/v1/users/jos%C3%A9/favorites/cafe%CC%81-7", headers: Self.json.merging(["If-Match": "\"3\""]) { $1 }, body: Self.summary)
        #expect(response.status == 201 && response.headers["etag"] == "\"4\"", "\(response)")
        response = try call("PUT", "/v1/users/jose%CC%81/favorites/caf%C3%A9-7", headers: Self.json.merging(["If-Match": "*"]) { $1 }, body: Self.summary)
        #expect(response.status == 200 && response.body.contains("already a favorite") && response.headers["etag"] == "\"4\"", "\(response)")
        for listing in Self.listings {
            try same({ "/v1/users/\($0)/listings/\(listing)" }, etag: "\"4\"") { $0.contains(#""favorite":true"#) }
        }
        response = try call("DELETE", "/v1/users/jose%CC%81/favorites/LD", headers: ["If-Match": "\"4\""])
        #expect(response.status == 201 && response.headers["etag"] == "\"5\"", "\(response)")
        try same({ "/v1/users/\($0)/favorites" }, etag: "\"5\"") { Self.holds($0, Self.cafe) && !$0.contains(#""LD""#) }
        try same({ "/v1/users/\($0)/favorites?as-of=1" }, etag: nil) { $0.contains(#""listingID":"LD""#) }
        try same({ "/v1/users/\($0)/history" }, etag: "\"5\"") { $0.components(separatedBy: #""position":"#).count == 6 }
        try same({ "/v1/users/\($0)/history?type=Favorited&as-of=4" }, etag: nil) { $0.components(separatedBy: #""position":"#).count == 3 }
        for user in Self.users {
            response = try call("GET", "/v1/audit/users/\(user)")
            #expect(response.status == 200 && response.body.contains("Hamilton") && response.body.contains("Wicked"), "audit page of \(user): \(response.status)")
        }

        // Invisible characters are refused on every route that takes an id, naming the code point.
        let zeroWidth = "jos%E2%80%8Be"          // U+200B ZERO WIDTH SPACE
        let override = "L%E2%80%AE7"             // U+202E RIGHT-TO-LEFT OVERRIDE
        let refusals: [(String, String, [String: String], String?, String)] = [
            ("GET", "/v1/users/\(zeroWidth)/favorites", [:], nil, "U+200B"),
            ("GET", "/v1/users/\(zeroWidth)/recent-searches", [:], nil, "U+200B"),
            ("GET", "/v1/users/\(zeroWidth)/recently-viewed", [:], nil, "U+200B"),
            ("GET", "/v1/users/\(zeroWidth)/favorites?as-of=1", [:], nil, "U+200B"),
            ("GET", "/v1/users/\(zeroWidth)/history", [:], nil, "U+200B"),
            ("GET", "/v1/users/\(zeroWidth)/listings/LD", [:], nil, "U+200B"),
            ("GET", "/v1/users/jos%C3%A9/listings/\(override)", [:], nil, "U+202E"),
            ("GET", "/v1/listings/\(override)/details", [:], nil, "U+202E"),
            ("GET", "/v1/audit/users/\(zeroWidth)", [:], nil, "U+200B"),
            ("PUT", "/v1/users/\(zeroWidth)/favorites/LD", Self.json, Self.summary, "U+200B"),
            ("PUT", "/v1/users/jos%C3%A9/favorites/\(override)", Self.json, Self.summary, "U+202E"),
            ("PUT", "/v1/users/\(zeroWidth)/favorites/LD", Self.json.merging(["If-Match": "*"]) { $1 }, Self.summary, "U+200B"),
            ("DELETE", "/v1/users/\(zeroWidth)/favorites/LD", [:], nil, "U+200B"),
            ("DELETE", "/v1/users/jos%C3%A9/favorites/\(override)", [:], nil, "U+202E"),
            ("POST", "/v1/users/\(zeroWidth)/searches", Self.json, #"{"keyword":"x","location":"LA"}"#, "U+200B"),
            ("POST", "/v1/users/jos%C3%A9/searches", Self.json.merging(["Idempotency-Key": "k\u{200B}1"]) { $1 }, #"{"keyword":"x","location":"LA"}"#, "U+200B"),
            ("POST", "/v1/users/jos%C3%A9/views", Self.json, Self.details.replacingOccurrences(of: #"cafe\u0301-7"#, with: #"L\ufeff7"#), "U+FEFF"),
            ("POST", "/v1/admin/users/\(zeroWidth)/forget", Self.json, #"{"reason":"test"}"#, "U+200B"),
        ]
        for (method, path, headers, body, named) in refusals {
            response = try call(method, path, headers: headers, body: body)
            #expect(response.status == 422 && response.body.contains("/problems/validation") && response.body.contains(named), "\(method) \(path): \(response)")
        }
        try same({ "/v1/users/\($0)/favorites" }, etag: "\"5\"") { _ in true }

        // An erasure named in NFD erases the one user; both spellings then read the erased views.
        response = try call("POST", "/v1/admin/users/jose%CC%81/forget", headers: Self.json, body: #"{"reason":"test"}"#)
        #expect(response.status == 200 && Self.holds(response.body, #""user":"\#(Self.nfc)""#) && response.body.contains(#""erasedEvents":5"#), "\(response)")
        let erased = try call("GET", "/v1/users/jos%C3%A9/favorites").headers["etag"]
        #expect(erased != nil && erased != "\"5\"", "the erasure is an event of the user's stream")
        try same({ "/v1/users/\($0)/favorites" }, etag: erased) { $0 == #"{"items":[]}"# }
        try same({ "/v1/users/\($0)/history" }, etag: erased) { _ in true }

        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(2_000))")
        let log = try Processes.run(Processes.evtool, ["log", "--json", "--store", store])
        #expect(log.status == 0 && Self.holds(log.output, #""stream":"\#(Self.nfc)""#), "\(log)")
        #expect(!Self.holds(log.output, "jose\u{301}") && !Self.holds(log.output, "cafe\u{301}") && !Self.holds(log.output, "cle\u{301}"),
                "every id is recorded in NFC: \(log.output)")
        let verify = try Processes.run(Processes.evtool, ["verify", "--store", store])
        #expect(verify.status == 0, "\(verify)")
    }
}
