import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Synchronization
import Testing
import TestSupport

/// Reads answered from the server's view memory, on both stores: the same bytes and ETag as
/// reads from the store (a second API over another handle to the same store, memory off),
/// with writes through this server and through another one, an erasure through either, a
/// small bound, and read-your-writes under concurrent readers and writers.
@Suite("View memory reads")
struct ViewMemoryReadsTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let json = ["Content-Type": "application/json"]

    static func summary(_ name: String) -> [UInt8] {
        Array(#"{"name":"\#(name)","venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)
    }

    static func details(_ listing: String, _ name: String) -> [UInt8] {
        Array(#"{"listingID":"\#(listing)","info":{"name":"\#(name)","artistsOrTeams":[],"venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre","genres":["Musical"]},"upcomingEvents":[]}"#.utf8)
    }

    /// Two servers over one store: `memory` keeps views in memory (its follower running),
    /// `plain` reads every answer from the store; both with authentication off (admin).
    struct Servers {
        let memory: API
        let plain: API
        let follower: ViewMemoryFollower
    }

    /// Two handles on one new store of `kind` (as two servers or processes have) and its cleanup.
    static func twoHandles(_ kind: Kind) throws -> (first: any EventStore & ProjectionStore, second: any EventStore & ProjectionStore, cleanup: () -> Void) {
        switch kind {
        case .sqlite:
            let file = try TestStores.sqliteFile()
            return (file.store, try file.open(), file.cleanup)
        case .postgres:
            let postgres = try TestStores.postgres()
            return (postgres.store, try postgres.open(), postgres.cleanup)
        }
    }

    func withServers(_ kind: Kind, capacity: Int = ViewMemory.defaultCapacityBytes, _ body: (Servers) throws -> Void) throws {
        let (first, second, cleanup) = try Self.twoHandles(kind)
        defer { cleanup() }
        let application = Application(store: first, groupCommit: true, decidesOnCachedState: true)
        let follower = try ViewMemoryFollower(store: first, memory: application.viewMemory, capacityBytes: capacity) { _ in }
        defer { follower.stop() }
        let servers = Servers(memory: API(application: application, tokens: nil),
                              plain: API(application: Application(store: second, groupCommit: true, decidesOnCachedState: true), tokens: nil),
                              follower: follower)
        try body(servers)
    }

    static func get(_ api: API, _ target: String) -> HTTPResponse {
        api.respond(to: HTTPRequest(method: "GET", target: target))
    }

    /// Every current read of `users` and `listings`.
    static func targets(users: [String], listings: [String]) -> [String] {
        var targets: [String] = []
        for user in users {
            targets += ["/v1/users/\(user)/favorites", "/v1/users/\(user)/recent-searches", "/v1/users/\(user)/recently-viewed"]
            targets += listings.prefix(3).map { "/v1/users/\(user)/listings/\($0)" }
        }
        targets += listings.map { "/v1/listings/\($0)/details" }
        return targets
    }

    /// What a response is, to compare: status, ETag, body.
    static func shown(_ response: HTTPResponse) -> String {
        "\(response.status) \(response.header("ETag") ?? "-") \(response.text)"
    }

    /// Expects every target to answer the same through both servers now.
    static func expectSame(_ servers: Servers, _ targets: [String], _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        var differing: [String] = []
        for target in targets {
            let remembered = shown(get(servers.memory, target))
            let again = shown(get(servers.memory, target))   // from memory when the first filed it
            let stored = shown(get(servers.plain, target))
            if remembered != stored || again != stored { differing.append("\(target): memory \(again) store \(stored)") }
        }
        #expect(differing.isEmpty, "\(note): \(differing.prefix(3))", sourceLocation: sourceLocation)
    }

    /// Waits (up to 10 s) until every target answers the same through both servers.
    static func expectSameSoon(_ servers: Servers, _ targets: [String], _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if targets.allSatisfy({ shown(get(servers.memory, $0)) == shown(get(servers.plain, $0)) }) { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        expectSame(servers, targets, note, sourceLocation: sourceLocation)
    }

    /// One random write of `user` through `api`.
    static func write(_ api: API, user: String, listings: [String], generator: inout SplitMix) {
        let listing = listings[Int(generator.next() % UInt64(listings.count))]
        let request: HTTPRequest
        switch generator.next() % 4 {
        case 0: request = HTTPRequest(method: "PUT", target: "/v1/users/\(user)/favorites/\(listing)", headers: json, body: summary("show \(listing)"))
        case 1: request = HTTPRequest(method: "DELETE", target: "/v1/users/\(user)/favorites/\(listing)")
        case 2: request = HTTPRequest(method: "POST", target: "/v1/users/\(user)/searches", headers: json,
                                      body: Array(#"{"keyword":"jazz \#(generator.next() % 5)","location":"Los Angeles"}"#.utf8))
        default: request = HTTPRequest(method: "POST", target: "/v1/users/\(user)/views", headers: json, body: details(listing, "seen \(generator.next() % 7)"))
        }
        let status = api.respond(to: request).status
        #expect(status == 200 || status == 201, "\(request.method) \(request.path): \(status)")
    }

    @Test("memory reads equal store reads byte for byte: writes here and through another server, erasures through either", arguments: Kind.allCases)
    func sameBytes(kind: Kind) throws {
        try withServers(kind) { servers in
            let users = (0..<10).map { "u\($0)" }
            let listings = (0..<4).map { "L\($0)" }
            let targets = Self.targets(users: users, listings: listings)
            var generator = SplitMix(seed: 14)
            Self.expectSame(servers, targets, "empty store")
            for round in 0..<3 {
                // Writes through this server are in its next reads at once (read-your-writes).
                for _ in 0..<15 { Self.write(servers.memory, user: users[Int(generator.next() % 10)], listings: listings, generator: &generator) }
                Self.expectSame(servers, targets, "round \(round), after writes through this server")
                // Another server's writes reach this one through its follower.
                for _ in 0..<8 { Self.write(servers.plain, user: users[Int(generator.next() % 10)], listings: listings, generator: &generator) }
                Self.expectSameSoon(servers, targets, "round \(round), after writes through another server")
            }
            let statistics = servers.memory.application.viewMemory.statistics
            #expect(statistics.hits > targets.count * 3 && statistics.count > 0, "reads came from memory: \(statistics)")

            // An erasure through this server drops what memory held at once.
            let favorite = HTTPRequest(method: "PUT", target: "/v1/users/u1/favorites/L-kept", headers: Self.json, body: Self.summary("kept"))
            #expect(servers.memory.respond(to: favorite).status == 201)
            let before = Self.get(servers.memory, "/v1/users/u1/favorites")
            let erase = HTTPRequest(method: "POST", target: "/v1/admin/users/u1/forget", headers: Self.json, body: Array(#"{"reason":"ticket 14"}"#.utf8))
            #expect(servers.memory.respond(to: erase).status == 200)
            Self.expectSame(servers, targets, "after a forget through this server")
            let after = Self.get(servers.memory, "/v1/users/u1/favorites")
            #expect(before.text.contains("listingID") && !after.text.contains("listingID"), "\(before.text) then \(after.text)")

            // An erasure through another server: this one's follower clears its memory.
            let erase2 = HTTPRequest(method: "POST", target: "/v1/admin/users/u2/forget", headers: Self.json, body: Array(#"{"reason":"ticket 15"}"#.utf8))
            for target in targets { _ = Self.get(servers.memory, target) }
            #expect(servers.plain.respond(to: erase2).status == 200)
            Self.expectSameSoon(servers, targets, "after a forget through another server")
        }
    }

    @Test("a small bound holds, and answers stay those of the store", arguments: Kind.allCases)
    func smallBound(kind: Kind) throws {
        let capacity = 8_192
        try withServers(kind, capacity: capacity) { servers in
            let users = (0..<30).map { "b\($0)" }
            let listings = (0..<4).map { "L\($0)" }
            var generator = SplitMix(seed: 7)
            for user in users {
                for _ in 0..<3 { Self.write(servers.memory, user: user, listings: listings, generator: &generator) }
            }
            let targets = Self.targets(users: users, listings: listings)
            for _ in 0..<2 {
                Self.expectSame(servers, targets, "with an 8 KiB bound")
                #expect(servers.memory.application.viewMemory.statistics.bytes <= capacity)
            }
            let statistics = servers.memory.application.viewMemory.statistics
            #expect(statistics.evictions > 0 && statistics.hits > 0 && statistics.bytes <= capacity, "\(statistics)")
        }
    }

    @Test("read-your-writes with concurrent writers and readers through memory", arguments: Kind.allCases)
    func readYourWrites(kind: Kind) throws {
        try withServers(kind) { servers in
            let api = servers.memory
            let writers = 3, rounds = 8
            final class Shared: Sendable {
                let stop = Atomic<Bool>(false)
                let failures = Mutex<[String]>([])
            }
            let shared = Shared()
            let group = DispatchGroup()
            // Readers keep filling the memory with every writer's users while they write. Each
            // on a thread of its own: the global dispatch queue runs only as many work items at
            // once as there are cores, and the readers loop until the writers are done.
            for reader in 0..<2 {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    var index = reader
                    while !shared.stop.load(ordering: .relaxed) {
                        _ = Self.get(api, "/v1/users/w\(index % writers)/favorites")
                        _ = Self.get(api, "/v1/users/w\(index % writers)/listings/L\(index % rounds)")
                        index += 1
                        Thread.sleep(forTimeInterval: 0.002)   // room for the writers on a loaded machine
                    }
                }
            }
            let writing = DispatchGroup()
            for writer in 0..<writers {
                writing.enter()
                Thread.detachNewThread {
                    defer { writing.leave() }
                    for round in 0..<rounds {
                        let user = "w\(writer)", listing = "L\(round)"
                        let put = api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/\(user)/favorites/\(listing)", headers: Self.json, body: Self.summary("s\(round)")))
                        let favorites = Self.get(api, "/v1/users/\(user)/favorites")
                        let page = Self.get(api, "/v1/users/\(user)/listings/\(listing)")
                        if put.status != 201 || favorites.header("ETag") != put.header("ETag") || !favorites.text.contains(#""listingID":"\#(listing)""#)
                            || page.header("ETag") != put.header("ETag") || !page.text.contains(#""favorite":true"#) {
                            shared.failures.withLock { $0.append("\(user) \(listing): put \(put.status) \(put.header("ETag") ?? "-"); read \(favorites.header("ETag") ?? "-") \(page.text)") }
                        }
                        let delete = api.respond(to: HTTPRequest(method: "DELETE", target: "/v1/users/\(user)/favorites/\(listing)"))
                        let gone = Self.get(api, "/v1/users/\(user)/listings/\(listing)")
                        if delete.status != 201 || gone.header("ETag") != delete.header("ETag") || !gone.text.contains(#""favorite":false"#) {
                            shared.failures.withLock { $0.append("\(user) \(listing): delete \(delete.status); read \(gone.header("ETag") ?? "-") \(gone.text)") }
                        }
                    }
                }
            }
            writing.wait()
            shared.stop.store(true, ordering: .relaxed)
            group.wait()
            let seen = shared.failures.withLock { $0 }
            #expect(seen.isEmpty, "\(seen.count) reads missed their own write: \(seen.prefix(3))")
            #expect(api.application.viewMemory.statistics.hits > 0)
        }
    }

    /// A small seeded generator (SplitMix64), so a failing run can be repeated.
    struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
}
