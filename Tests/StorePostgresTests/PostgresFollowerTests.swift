import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("PostgreSQL store: following the log")
struct PostgresFollowerTests {
    @Test("a NOTIFY wakes a waiting follower long before its re-check")
    func notificationWakes() throws {
        try TestDatabase.withStore { store, schema in
            let follower = try PostgresFollower(url: try TestDatabase.url(), schema: schema, recheckInterval: .seconds(60))
            #expect(try follower.next(timeout: .milliseconds(50)).isEmpty)
            let failures = Failures()
            let writer = Thread {
                Thread.sleep(forTimeInterval: 0.2)
                do { _ = try store.append(event(), to: "u", expectedVersion: .any) } catch { failures.add("the writer: \(error)") }
            }
            let started = Date()
            writer.start()
            let events = try follower.next(timeout: .seconds(20))
            while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(events.count == 1)
            #expect(Date().timeIntervalSince(started) < 10)
            #expect(follower.position == events.last?.position)
            #expect(try follower.waitForEvents(after: follower.position, timeout: .milliseconds(100)) == false)
        }
    }

    @Test("appends do not send a NOTIFY each: a burst of them wakes a listener with a few notifications, the last carrying the head")
    func notificationsCoalesce() throws {
        try TestDatabase.withStore { store, schema in
            let listener = try PostgresConnection(conninfo: try TestDatabase.url())
            _ = try listener.execute("LISTEN \"\(try PostgresSchema(name: schema).channel)\"")
            let appends = 300
            var last: Int64 = 0
            for index in 0..<appends {
                last = try store.append(event("T", #"{"i":\#(index)}"#), to: "u", expectedVersion: .any).positions.upperBound
            }
            // Collect until the head's notification arrives (or 10 s pass).
            var payloads: [String] = []
            let deadline = Date().addingTimeInterval(10)
            while payloads.last != String(last) && Date() < deadline {
                var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
                _ = poll(&descriptor, 1, 100)
                payloads += try listener.consumeNotifications().map(\.payload)
            }
            #expect(payloads.last == String(last), "the last notification names the head position \(last): \(payloads.suffix(3))")
            #expect(!payloads.isEmpty && payloads.count < appends, "\(payloads.count) notifications for \(appends) appends")
            // Each names a position that had committed, in rising order.
            let positions = payloads.compactMap(Int64.init)
            #expect(positions.count == payloads.count && positions == positions.sorted() && positions.allSatisfy { $0 >= 1 && $0 <= last })
        }
    }

    @Test("a notifier stopped right after an announcement (a store going away, a one-shot command) sends it before stop returns")
    func notifierFlushesOnStop() throws {
        let url = try TestDatabase.url()
        let schema = try PostgresSchema(name: TestDatabase.freshSchema())
        let listener = try PostgresConnection(conninfo: url)
        _ = try listener.execute("LISTEN \"\(schema.channel)\"")
        let notifier = PostgresNotifier(conninfo: url, channel: schema.channel)
        notifier.announce(41)
        notifier.announce(42)
        notifier.stop()
        #expect(notifier.isFinished, "stop returned before the pending notification was sent")
        var payloads: [String] = []
        let deadline = Date().addingTimeInterval(5)
        while payloads.last != "42" && Date() < deadline {
            var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
            _ = poll(&descriptor, 1, 100)
            payloads += try listener.consumeNotifications().map(\.payload)
        }
        #expect(payloads.last == "42")
        // A notifier that never announced anything has no thread to stop.
        let idle = PostgresNotifier(conninfo: url, channel: schema.channel)
        idle.stop()
        #expect(!idle.isFinished)
    }

    @Test("the store's waitForEvents wakes on an append and times out without one")
    func storeWaitForEvents() throws {
        try TestDatabase.withStore { store, _ in
            let clock = ContinuousClock()
            var quietWoke = true
            let quiet = try clock.measure { quietWoke = try store.waitForEvents(after: 0, timeout: .milliseconds(200)) }
            #expect(!quietWoke)
            #expect(quiet >= .milliseconds(150))
            let failures = Failures()
            let writer = Thread {
                Thread.sleep(forTimeInterval: 0.2)
                do { _ = try store.append(event(), to: "u", expectedVersion: .any) } catch { failures.add("the writer: \(error)") }
            }
            writer.start()
            var woke = false
            let waited = try clock.measure { woke = try store.waitForEvents(after: 0, timeout: .seconds(20)) }
            while !writer.isFinished { Thread.sleep(forTimeInterval: 0.01) }
            #expect(failures.all.isEmpty, "\(failures.all)")
            #expect(woke)
            #expect(waited < .seconds(10))
            #expect(try store.waitForEvents(after: 0, timeout: .zero))
            let head = try store.headPosition()
            #expect(try store.waitForEvents(after: head, timeout: .milliseconds(10)) == false)
        }
    }

    @Test("without notifications the periodic re-check still delivers every event")
    func recheckWithoutNotifications() throws {
        let url = try TestDatabase.url()
        let schema = TestDatabase.freshSchema()
        defer { try? PostgresEventStore.dropSchema(url: url, schema: schema) }
        let silent = try PostgresEventStore(url: url, schema: schema, notifiesFollowers: false)
        let follower = try PostgresFollower(url: url, schema: schema, recheckInterval: .milliseconds(100))
        var appended: [UUID] = []
        for index in 0..<5 {
            let one = event("T", #"{"i":\#(index)}"#)
            _ = try silent.append(one, to: "u", expectedVersion: .any)
            appended.append(one.id)
        }
        var seen: [UUID] = []
        let deadline = Date().addingTimeInterval(20)
        while seen.count < 5 && Date() < deadline {
            seen += try follower.next(timeout: .seconds(1), limit: 2).map(\.id)
        }
        #expect(seen == appended)
    }

    @Test("a follower survives the server crashing and restarting: nothing skipped or repeated")
    func survivesRestart() throws {
        let server = try PrivatePostgres.start()
        defer { server.remove() }
        let url = server.url
        let store = try PostgresEventStore(url: url, schema: "evtool")

        let seen = Mutex<[RecordedEvent]>([])
        let stopFollowing = Counter(0)
        let followerErrors = Counter(0)
        let reconnections = Counter(0)
        let failures = Failures()
        let followerThread = Thread {
            let follower: PostgresFollower
            do { follower = try PostgresFollower(url: url, schema: "evtool", recheckInterval: .milliseconds(200)) } catch {
                failures.add("the follower did not start: \(error)")
                return
            }
            defer { reconnections.add(follower.reconnections) }
            while stopFollowing.value == 0 {
                do {
                    let batch = try follower.next(timeout: .milliseconds(300), limit: 7)
                    seen.withLock { $0 += batch }
                } catch {
                    followerErrors.add(1)   // the server is down: keep trying
                }
            }
        }
        followerThread.start()

        var committed: [UUID] = []
        func appendSurely(_ index: Int) throws {
            let one = event("T", #"{"i":\#(index)}"#)
            for _ in 0..<200 {
                do {
                    _ = try store.append(one, to: "s\(index % 4)", expectedVersion: .any)
                    committed.append(one.id); return
                } catch EventStoreError.duplicateEventID {
                    committed.append(one.id); return   // an earlier try with an unknown outcome committed
                } catch EventStoreError.unavailable, EventStoreError.outcomeUnknown {
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }
            Issue.record("append \(index) never succeeded")
        }
        for index in 0..<40 { try appendSurely(index) }
        Thread.sleep(forTimeInterval: 0.3)
        try server.crash()
        Thread.sleep(forTimeInterval: 0.5)
        try server.restart()
        for index in 40..<80 { try appendSurely(index) }

        let deadline = Date().addingTimeInterval(30)
        while seen.withLock({ $0.count }) < committed.count && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        stopFollowing.add(1)
        while !followerThread.isFinished { Thread.sleep(forTimeInterval: 0.02) }

        #expect(failures.all.isEmpty, "\(failures.all)")
        let followed = seen.withLock { $0 }
        let rebuild = try store.readAll(after: 0, limit: 10_000)
        #expect(committed.count == 80)
        #expect(rebuild.map(\.id) == committed)
        #expect(followed.map(\.id) == rebuild.map(\.id), "followed \(followed.count), rebuild \(rebuild.count)")
        #expect(reconnections.value >= 1)
    }
}
