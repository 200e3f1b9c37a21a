import EvtoolKit
import Foundation
import HTTPServer
import Testing
import TestSupport

/// The whole server of `evtool serve`, made by the library call the command makes
/// (``ServerSetup``) and run in the test's own process: a write and a read over a socket, then
/// a clean stop.
struct InProcessServerTests {
    @Test func theServersSetupRunsInProcess() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var settings = ServerSetup.Settings(location: try StoreLocation(parsing: "sqlite:\(directory.path)/served.sqlite"))
        settings.configuration.host = "127.0.0.1"
        settings.configuration.port = 0
        let setup = try ServerSetup(settings) { _ in }
        try setup.start()
        let port = setup.server.port
        let body = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)
        let put = Array("PUT /v1/users/ada/favorites/L1 HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
        let written = try RawHTTP.exchange(port: port, put)
        #expect(written.statuses == [201], "\(written)")
        let read = try RawHTTP.exchange(port: port, Array("GET /v1/users/ada/favorites HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(read.statuses == [200] && read.text.contains(#""listingID":"L1""#), "\(read)")
        #expect(setup.stop() == 0)
        #expect(try setup.application.streamVersion(user: "ada") == 1)
    }
}
