@testable import EvtoolClient
import Foundation
import Testing
import TestSupport

/// EvtoolClient against a real `evtool serve` on SQLite and PostgreSQL, started by the tests:
/// offline recording then sending, a server killed mid-sync, a client killed between a send
/// and its outbox update, a refused action, a revoked token, two devices of one user, the live
/// stream across a server restart.
@Suite(.serialized)
struct ClientServeTests {
    @Test("actions recorded with the server down show at once, wait in the outbox, and are sent once each, in order, when it starts", arguments: StoreKind.allCases)
    func offlineThenSent(kind: StoreKind) async throws {
        let server = try Server(kind)
        let client = try server.client()
        try client.record(.search(Search(keyword: "Hamilton", category: "Arts & Theatre", place: .named("Los Angeles"), resultListingIDs: ["L1", "L2"])))
        try client.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        try client.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        try client.record(.viewDetails(ListingDetails(listingID: "L1", name: "Hamilton")))
        try client.record(.unfavorite(listingID: "L1"))
        #expect(try client.favorites().map(\.listingID) == ["L2"])
        #expect(try client.isFavorite("L1") == false && client.isFavorite("L2"))
        #expect(try client.recentSearches().map(\.keyword) == ["Hamilton"] && client.recentSearches().first?.resultCount == 2)
        #expect(try client.recentlyViewed().map(\.listingID) == ["L1"])
        #expect(try client.listing("L1").details.map { String(decoding: $0, as: UTF8.self).contains("Hamilton") } == true)

        let offline = await client.sync()
        guard case .unreachable? = offline.stopped else { Issue.record("offline: \(String(describing: offline.stopped))"); return }
        #expect(offline.remaining == 5 && offline.sent.isEmpty)
        #expect(try client.pendingActions().count == 5)

        try server.start()
        let online = await client.sync()
        #expect(online.stopped == nil && online.remaining == 0 && online.sent.count == 5, "\(online)")
        #expect(online.sent.map(\.recorded) == [true, true, true, true, true])
        let history = try server.history()
        #expect(history.map(\.type) == ["Searched", "Favorited", "Favorited", "DetailsViewed", "Unfavorited"], "\(history)")
        #expect(history.map(\.subject) == ["Hamilton", "L1", "L2", "L1", "L1"])
        // After the sync the views are the server's own answers, equal to the optimistic ones.
        #expect(try client.favorites().map(\.listingID) == ["L2"])
        #expect(try client.recentlyViewed().map(\.listingID) == ["L1"])
        // A second sync has nothing to send and changes nothing.
        let again = await client.sync()
        #expect(again.sent.isEmpty && again.stopped == nil)
        #expect(try server.history().count == 5)
    }

    @Test("the server killed with SIGKILL in the middle of a sync and restarted: every action recorded exactly once, in order", arguments: StoreKind.allCases)
    func serverKilledMidSync(kind: StoreKind) throws {
        let server = try Server(kind)
        let file = server.directory.path + "/device.sqlite"
        let driver = Processes.built("ClientDriver")
        let base = [server.url.absoluteString, server.appToken, "ada", file]
        let recorded = try Processes.run(driver, base + ["record", "300"])
        #expect(recorded.status == 0, "\(recorded)")
        try server.start()
        let syncing = try Processes.start(driver, base + ["sync"])
        #expect(try eventually { try server.servedHead() >= 10 }, "the sync got going")
        try server.kill()
        let storedCount = try server.head()
        #expect(storedCount < 300, "killed mid-sync: \(storedCount) of 300 recorded")
        Thread.sleep(forTimeInterval: 0.5)
        try server.start()
        let ended = try syncing.finish()
        #expect(ended.status == 0, "\(ended)")
        let history = try server.history()
        let expected = (0..<300).map { $0 % 3 == 2 ? "k\($0)" : "L\($0)" }
        #expect(history.map(\.subject) == expected, "every action once, in order: \(history.map(\.subject))")
        #expect(Set(history.map(\.requestID)).count == 300)
    }

    @Test("the client killed between a send and its outbox update resends with the same key: recorded once, the resend a replay", arguments: StoreKind.allCases)
    func clientKilledBetweenSendAndOutboxUpdate(kind: StoreKind) throws {
        let server = try Server(kind)
        try server.start()
        let file = server.directory.path + "/device.sqlite"
        let driver = Processes.built("ClientDriver")
        let base = [server.url.absoluteString, server.appToken, "ada", file]
        #expect(try Processes.run(driver, base + ["record", "3"]).status == 0)
        // Another connection holds the file's write lock: the driver can read its outbox and
        // send, but not mark what it sent.
        let locker = try LocalDatabase(path: file)
        try locker.execute("BEGIN IMMEDIATE")
        let syncing = try Processes.start(driver, base + ["sync"])
        #expect(try eventually { try server.servedHead() >= 1 }, "the first action reached the server")
        Thread.sleep(forTimeInterval: 0.3)
        syncing.send(SIGKILL)
        let killed = try syncing.finish()
        #expect(killed.wasSignaled && !killed.output.contains("sent "), "killed before it marked anything: \(killed)")
        try locker.execute("ROLLBACK")
        #expect(try server.head() == 1, "the driver was waiting for the lock after its first send")
        #expect(try locker.query("SELECT count(*) FROM outbox WHERE state = 'pending'").first?.first?.integer == 3, "the outbox still holds all three")

        let resumed = try Processes.run(driver, base + ["sync"])
        #expect(resumed.status == 0, "\(resumed)")
        let lines = resumed.output.split(separator: "\n")
        #expect(lines.first == "sent 1 replayed=true", "the first action's resend was answered as a replay: \(resumed.output)")
        #expect(lines.dropFirst().prefix(2) == ["sent 2 replayed=false", "sent 3 replayed=false"], "\(resumed.output)")
        #expect(try server.history().map(\.subject) == ["L0", "L1", "k2"], "each action once, in order")
    }

    @Test("a refused action leaves the outbox with its problem reported and the views corrected; the others are sent", arguments: StoreKind.allCases)
    func refusedAction(kind: StoreKind) async throws {
        let server = try Server(kind)
        try server.start()
        let client = try server.client()
        try client.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        try client.record(.search(Search(keyword: "   ", place: .named("Los Angeles"))))
        try client.record(.search(Search(keyword: "Wicked", category: "Musicals", place: .named("Los Angeles"))))
        try client.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        #expect(try client.recentSearches().count == 2, "optimistic: both searches show until the server decides")
        let report = await client.sync()
        #expect(report.stopped == nil && report.remaining == 0, "\(report)")
        #expect(report.sent.map(\.action.sequence) == [1, 4])
        #expect(report.refused.map(\.sequence) == [2, 3])
        #expect(report.refused.map(\.problem.type) == ["/problems/validation", "/problems/validation"])
        #expect(report.refused.map(\.problem.field) == ["keyword", "category"], "\(report.refused)")
        let refused = try client.refusedActions()
        #expect(refused.count == 2 && refused[1].problem.detail.contains("category"), "\(refused)")
        #expect(try client.recentSearches().isEmpty, "the refused searches are gone from the views")
        #expect(try client.favorites().map(\.listingID) == ["L1", "L2"])
        try client.dismiss(refused[0])
        #expect(try client.refusedActions().map(\.sequence) == [3])
        #expect(try server.history().map(\.subject) == ["L1", "L2"])
    }

    @Test("a revoked token stops sync with 401 and keeps the outbox; a new token sends it", arguments: StoreKind.allCases)
    func revokedToken(kind: StoreKind) async throws {
        let server = try Server(kind)
        try server.start()
        let file = server.directory.path + "/device.sqlite"
        let client = try server.client(file: file)
        try client.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        #expect(await client.sync().sent.count == 1)
        // The operator revokes the token (takes it out of the file) and restarts the server.
        try server.kill()
        try "".write(toFile: server.tokens, atomically: true, encoding: .utf8)
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "app", "--tokens", server.tokens, "--name", "phone-2"])
        let newToken = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try server.start()
        try client.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        try client.record(.unfavorite(listingID: "L1"))
        let refused = await client.sync()
        guard case let .unauthorized(problem)? = refused.stopped else { Issue.record("\(refused)"); return }
        #expect(problem.status == 401 && problem.type == "/problems/unauthorized")
        #expect(refused.remaining == 2 && refused.sent.isEmpty && refused.refused.isEmpty)
        #expect(try client.favorites().map(\.listingID) == ["L2"], "the optimistic view keeps the waiting actions")
        // Signed in again (a new token), the same file sends what waited.
        let again = try server.client(file: file, token: newToken)
        let sent = await again.sync()
        #expect(sent.stopped == nil && sent.sent.count == 2, "\(sent)")
        #expect(try server.history().map(\.type) == ["Favorited", "Favorited", "Unfavorited"])
    }

    @Test("a user token made for the client's user syncs; a client of another user with it stops with 403 and keeps its outbox")
    func userToken() async throws {
        let server = try Server(.sqlite)
        let made = try Processes.run(Processes.evtool, ["token", "create", "--role", "user", "--user", "ada", "--tokens", server.tokens, "--name", "ada-phone"])
        #expect(made.status == 0, "\(made)")
        let ada = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        try server.start()
        let phone = try server.client("ada", token: ada)
        try phone.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        let sent = await phone.sync()
        #expect(sent.stopped == nil && sent.sent.count == 1, "\(sent)")
        #expect(try phone.favorites().map(\.listingID) == ["L1"])
        // The same token in a client signed in as bob: the server refuses every one of bob's routes.
        let other = try server.client("bob", token: ada)
        try other.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        let refused = await other.sync()
        guard case let .unauthorized(problem)? = refused.stopped else { Issue.record("\(refused)"); return }
        #expect(problem.status == 403 && problem.type == "/problems/forbidden" && problem.detail.contains("acts for one user only"), "\(problem)")
        #expect(refused.remaining == 1 && refused.sent.isEmpty && refused.refused.isEmpty)
        #expect(try server.history("ada").map(\.subject) == ["L1"])
        #expect(try server.history("bob").isEmpty, "nothing of bob's was recorded")
    }

    @Test("two devices of one user converge on the server's favorites, in its order; a stale device's write is a 412 it re-decides", arguments: StoreKind.allCases)
    func twoDevicesConverge(kind: StoreKind) async throws {
        let server = try Server(kind)
        try server.start()
        let phone = try server.client(), tablet = try server.client()
        try phone.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        _ = await phone.sync()
        _ = await tablet.sync()
        #expect(try tablet.favorites().map(\.listingID) == ["L1"])
        // Both change the favorites before either syncs again.
        try phone.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        try phone.record(.favorite(listingID: "L3", summary: summary("Cats")))
        try tablet.record(.favorite(listingID: "L4", summary: summary("Rent")))
        try tablet.record(.unfavorite(listingID: "L1"))
        try tablet.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        let phoneReport = await phone.sync()
        #expect(phoneReport.stopped == nil && phoneReport.sent.count == 2)
        let tabletReport = await tablet.sync()
        #expect(tabletReport.stopped == nil && tabletReport.remaining == 0, "\(tabletReport)")
        // L2 was already a favorite once the tablet re-read: done without a second event.
        #expect(tabletReport.sent.map(\.recorded) == [true, true, false], "\(tabletReport.sent)")
        _ = await phone.sync()
        let expected = ["L2", "L3", "L4"]
        #expect(try phone.favorites().map(\.listingID) == expected)
        #expect(try tablet.favorites().map(\.listingID) == expected)
        #expect(try server.history().map(\.type) == ["Favorited", "Favorited", "Favorited", "Favorited", "Unfavorited"])
    }

    @Test("the live stream delivers every event once, in order, across a server killed and restarted", arguments: StoreKind.allCases)
    func liveAcrossRestart(kind: StoreKind) async throws {
        let server = try Server(kind)
        try server.start()
        let phone = try server.client(), tablet = try server.client()
        let received = Received()
        let live = phone.live(onEvent: { received.add($0.version) })
        defer { live.stop() }
        try tablet.record(.favorite(listingID: "L1", summary: summary("Hamilton")))
        try tablet.record(.favorite(listingID: "L2", summary: summary("Wicked")))
        _ = await tablet.sync()
        #expect(eventually { received.versions.count >= 2 }, "\(received.versions)")
        #expect(try phone.favorites().map(\.listingID) == ["L1", "L2"], "the live stream refreshed the views")
        try server.kill()
        try server.favoriteWithCLI("ada", "L3")
        try server.favoriteWithCLI("ada", "L4")
        try await Task.sleep(nanoseconds: 500_000_000)
        try server.start()
        try tablet.record(.unfavorite(listingID: "L1"))
        _ = await tablet.sync()
        #expect(eventually(20) { received.versions.count >= 5 }, "\(received.versions)")
        try await Task.sleep(nanoseconds: 1_500_000_000)
        #expect(received.versions == [1, 2, 3, 4, 5], "each event once, in order: \(received.versions)")
        #expect(try phone.favorites().map(\.listingID) == ["L2", "L3", "L4"])
        #expect(live.lastVersion == 5)
    }
}

/// What a live stream delivered, from its callback's thread.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [Int64] = []
    func add(_ version: Int64) { lock.withLock { list.append(version) } }
    var versions: [Int64] { lock.withLock { list } }
}
