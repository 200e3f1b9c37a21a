import Foundation
import Testing
import TestSupport

/// Request smuggling (docs/reference/http.md, "What the server refuses"): every request whose framing
/// another HTTP implementation could read differently is answered 400 (411 for a chunked
/// body) and its connection closed, and the request sent behind it on the same connection is
/// never served. Raw bytes over a socket, against `evtool serve` on both stores; at the end
/// the smuggled user has no favorite and the store holds no event.
@Suite(.serialized)
struct ServeFramingTests {
    static let body = Array(#"{"name":"a","venue":"v","localDateTime":"2026-12-05 19:30:00","category":"Music"}"#.utf8)
    /// The request a proxy in front would never have seen, sent behind each refused one.
    static let smuggled = Array("PUT /v1/users/smuggled/favorites/L1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body
    static let search = "POST /v1/users/ada/searches HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
    static let health = "GET /healthz HTTP/1.1\r\nHost: x\r\n"

    /// (what, the request's bytes before the smuggled one, the status it gets).
    static let refused: [(String, [UInt8], Int)] = [
        ("Transfer-Encoding chunked then identity (two fields)", bytes(search + "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n"), 400),
        ("Transfer-Encoding: chunked, identity", bytes(search + "Transfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n"), 400),
        ("Transfer-Encoding: identity", bytes(search + "Transfer-Encoding: identity\r\n\r\n"), 400),
        ("Transfer-Encoding: gzip", bytes(search + "Transfer-Encoding: gzip\r\n\r\n"), 400),
        ("Transfer-Encoding: chunked, chunked", bytes(search + "Transfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n"), 400),
        ("Transfer-Encoding chunked twice (two fields)", bytes(search + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400),
        ("an empty Transfer-Encoding", bytes(search + "Transfer-Encoding: \r\n\r\n"), 400),
        ("Transfer-Encoding in HTTP/1.0", bytes("POST /v1/users/ada/searches HTTP/1.0\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400),
        ("Content-Length and Transfer-Encoding", bytes(search + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"), 400),
        ("Transfer-Encoding and Content-Length", bytes(search + "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n"), 400),
        ("two Content-Length fields", bytes(search + "Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}"), 400),
        ("a Content-Length list", bytes(search + "Content-Length: 2, 2\r\n\r\n{}"), 400),
        ("a Content-Length with a sign", bytes(search + "Content-Length: +2\r\n\r\n{}"), 400),
        ("a Content-Length in hex", bytes(search + "Content-Length: 0x2\r\n\r\n{}"), 400),
        ("a chunked body (a length is required)", bytes(search + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"), 411),
        ("a chunk size with an extension", bytes(search + "Transfer-Encoding: chunked\r\n\r\n2;x=\"\n\"\r\n{}\r\n0\r\n\r\n"), 411),
        ("an oversized chunk size", bytes(search + "Transfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFF\r\n{}\r\n0\r\n\r\n"), 411),
        ("a chunk size that is not hex", bytes(search + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"), 411),
        ("a bare LF ending the request line", bytes("GET /healthz HTTP/1.1\nHost: x\r\n\r\n"), 400),
        ("a bare LF ending a header line", bytes(health + "X-A: b\nX-C: d\r\n\r\n"), 400),
        ("a bare LF ending the last header line", bytes(health + "X-A: b\n\r\n"), 400),
        ("a bare LF ending the head", bytes(health + "\n"), 400),
        ("a bare CR in a value", bytes(health + "X-A: b\rX-C: d\r\n\r\n"), 400),
        ("whitespace between a field name and its colon", bytes(health + "X-Source : ios\r\n\r\n"), 400),
        ("a tab between a field name and its colon", bytes(health + "X-Source\t: ios\r\n\r\n"), 400),
        ("obsolete line folding", bytes(health + "X-Source: ios\r\n app\r\nX-B: c\r\n\r\n"), 400),
        ("obsolete line folding in the last field", bytes(health + "X-Source: ios\r\n\tapp\r\n\r\n"), 400),
        ("two spaces between method and target", bytes("GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 400),
        ("two spaces between target and version", bytes("GET /healthz  HTTP/1.1\r\nHost: x\r\n\r\n"), 400),
        ("a space after the version", bytes("GET /healthz HTTP/1.1 \r\nHost: x\r\n\r\n"), 400),
        ("a tab between method and target", bytes("GET\t/healthz HTTP/1.1\r\nHost: x\r\n\r\n"), 400),
        ("a NUL in a field value", bytes(health) + Array("X-Source: ios".utf8) + [0] + Array("evil\r\n\r\n".utf8), 400),
        ("a NUL in the Authorization value", bytes(health) + Array("Authorization: Bearer x".utf8) + [0] + Array("junk\r\n\r\n".utf8), 400),
        ("a NUL in the request target", Array("GET /healthz".utf8) + [0] + Array("x HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
        ("a NUL in the query", Array("GET /v1/users/ada/favorites?limit=1".utf8) + [0] + Array("x HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
        ("a NUL in the method", Array("GE".utf8) + [0] + Array("T /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8), 400),
        ("HTTP/1.1 without Host", bytes("GET /healthz HTTP/1.1\r\n\r\n"), 400),
        ("two Host fields", bytes(health + "Host: y\r\n\r\n"), 400),
    ]

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func refusedFramingOnSQLite() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try check(store: "sqlite:\(directory.path)/framing.sqlite")
    }

    @Test func refusedFramingOnPostgres() throws {
        let url = try TestStores.postgresURL()
        let schema = TestStores.freshSchema()
        defer { TestStores.dropPostgres(url: url, schema: schema) }
        let store = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        #expect(try Processes.run(Processes.evtool, ["init", "--store", store]).status == 0)
        try check(store: store)
    }

    func check(store: String) throws {
        let port = try FreePort.find()
        let server = try Processes.start(Processes.evtool, ["serve", "--no-auth", "--listen", "127.0.0.1:\(port)", "--store", store])
        try FreePort.waitUntilListening(port, process: server)
        // Only when a check threw before the clean stop at the end: the server goes with the test.
        defer { server.killIfRunning() }

        // The control: two sound requests on one connection are both served, so a smuggled
        // one would be seen by this test.
        let sound = try RawHTTP.exchange(port: port, Self.bytes(Self.health + "\r\n") + Self.bytes(Self.health + "Connection: close\r\n\r\n"))
        #expect(sound.statuses == [200, 200] && sound.closed, "\(sound)")

        for (what, request, status) in Self.refused {
            let answer = try RawHTTP.exchange(port: port, request + Self.smuggled)
            #expect(answer.statuses == [status], "\(what): one answer, \(status): \(answer)")
            #expect(answer.closed, "\(what): the connection is closed after the answer: \(answer)")
        }
        let favorites = try RawHTTP.exchange(port: port, Self.bytes("GET /v1/users/smuggled/favorites HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
        #expect(favorites.statuses == [200] && favorites.text.hasSuffix(#"{"items":[]}"#), "no smuggled request was served: \(favorites)")
        let stats = try Processes.run(Processes.evtool, ["stats", "--json", "--store", store])
        #expect(stats.status == 0 && stats.output.contains(#""events":0"#), "nothing was recorded: \(stats)")
        // Through all of it the server stayed up, and it stops cleanly.
        #expect(server.isRunning)
        server.send(SIGTERM)
        let ended = try server.finish()
        #expect(ended.status == 0, "\(ended.errors.suffix(1_000))")
    }
}
