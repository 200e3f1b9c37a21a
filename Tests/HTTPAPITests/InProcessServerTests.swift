import EventLog
import EvtoolKit
import Foundation
import HTTPServer
import Projections
import StoreLocations
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

    /// The stores a served views test runs on: an SQLite file, a fresh PostgreSQL schema.
    static let storeKinds = ["sqlite", "postgres"]

    /// A location of `kind` and how to remove it.
    func location(_ kind: String) throws -> (StoreLocation, () -> Void) {
        if kind == "sqlite" {
            let directory = try TemporaryDirectory()
            return (try StoreLocation(parsing: "sqlite:\(directory.path)/served.sqlite"), { directory.remove() })
        }
        let url = try TestStores.postgresURL(), schema = TestStores.freshSchema()
        return (try StoreLocation(parsing: url + (url.contains("?") ? "&" : "?") + "schema=" + schema), { TestStores.dropPostgres(url: url, schema: schema) })
    }

    /// Records `count` favorites of different users through the server, reading nothing.
    func recordFavorites(port: UInt16, count: Int) throws {
        let body = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)
        for index in 0..<count {
            let put = Array("PUT /v1/users/u\(index)/favorites/L\(index) HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n".utf8) + body
            let written = try RawHTTP.exchange(port: port, put)
            try #require(written.statuses == [201], "\(written)")
        }
    }

    /// Where each view's active generation stands in the store, by view.
    func checkpoints(_ location: StoreLocation) throws -> [String: Int64] {
        let store = try location.openForViews()
        return Dictionary(try store.projectionStatuses().filter(\.isActive).map { ($0.name, $0.position) }, uniquingKeysWith: max)
    }

    @Test("the server keeps the store's views at the head while nobody reads them", arguments: storeKinds)
    func viewsFollowTheLog(kind: String) throws {
        let (location, remove) = try location(kind)
        defer { remove() }
        let setup = try serve(location, followViews: true)
        try recordFavorites(port: setup.server.port, count: 20)
        let head = try location.openForViews().headPosition()
        #expect(head == 20)
        // Every view reaches the head without a read asking for it (within 20 s on a busy machine).
        var reached: [String: Int64] = [:]
        for _ in 0..<400 {
            reached = try checkpoints(location)
            if reached.count == Views.all.count, reached.values.allSatisfy({ $0 == head }) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(reached.count == Views.all.count && reached.values.allSatisfy { $0 == head }, "\(reached), head \(head)")
        #expect(setup.stop() == 0)
        // What the follower wrote is what the views say when read.
        let reader = try serve(location, followViews: false)
        defer { _ = reader.stop() }
        let read = try RawHTTP.exchange(port: reader.server.port, Array("GET /v1/users/u7/favorites HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(read.statuses == [200] && read.text.contains(#""listingID":"L7""#), "\(read)")
    }

    @Test("with --follow-views off the views move only when read", arguments: storeKinds)
    func viewsWaitForAReadWhenNotFollowed(kind: String) throws {
        let (location, remove) = try location(kind)
        defer { remove() }
        let setup = try serve(location, followViews: false)
        defer { _ = setup.stop() }
        let port = setup.server.port
        try recordFavorites(port: port, count: 5)
        Thread.sleep(forTimeInterval: 1)
        #expect(try checkpoints(location).values.allSatisfy { $0 == 0 })
        let read = try RawHTTP.exchange(port: port, Array("GET /v1/users/u3/favorites HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8))
        #expect(read.statuses == [200] && read.text.contains(#""listingID":"L3""#), "\(read)")
        #expect(try checkpoints(location)["favorites"] == 5)
    }

    /// A server on `location`, started.
    func serve(_ location: StoreLocation, followViews: Bool) throws -> ServerSetup {
        var settings = ServerSetup.Settings(location: location)
        settings.configuration.host = "127.0.0.1"
        settings.configuration.port = 0
        settings.followViews = followViews
        let setup = try ServerSetup(settings) { _ in }
        try setup.start()
        return setup
    }
}
