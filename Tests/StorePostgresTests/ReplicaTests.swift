import EventLog
import Foundation
@testable import StorePostgres
import Synchronization
import TestSupport
import Testing

/// PostgreSQL's own replication under evtool: followers reading a hot standby, and a failover
/// (the primary killed, the standby promoted) under writers and a follower. Each test starts a
/// primary and a streaming standby of its own (`scripts/postgres.sh start` and `standby`) and
/// removes both, even when it fails.
@Suite("PostgreSQL store: hot standbys and failover", .serialized)
struct ReplicaTests {
    /// A primary and a standby of it, removed by ``remove()``.
    struct Pair {
        let primary: PrivatePostgres
        let standby: PrivatePostgres

        static func start(synchronous: Bool) throws -> Pair {
            let primary = try PrivatePostgres.start()
            do {
                return Pair(primary: primary, standby: try primary.standby(synchronous: synchronous))
            } catch {
                primary.remove()
                throw error
            }
        }

        /// One URL naming both servers, as libpq takes it: the first that satisfies
        /// `target_session_attrs` (`read-write` for writers, `prefer-standby` for readers).
        func multiHost(_ attributes: String) -> String {
            "postgresql://postgres@127.0.0.1:\(primary.port),127.0.0.1:\(standby.port)/evtool_test?target_session_attrs=\(attributes)&connect_timeout=2"
        }

        func remove() {
            standby.remove()
            primary.remove()
        }
    }

    @Test("followers reading a synchronous standby see every event once, in the primary's order (gap safety)")
    func followersOnAStandby() throws {
        let pair = try Pair.start(synchronous: true)
        defer { pair.remove() }
        let schema = "replicated"
        _ = try PostgresEventStore(url: pair.primary.url, schema: schema)
        try GapSafetyTests.addJitter(schema: schema, url: pair.primary.url)
        try Self.waitForReplay(pair)
        try GapSafetyTests.followersSeeEveryEvent(writingTo: pair.primary.url, readingFrom: pair.standby.url, schema: schema)
    }

    @Test("a hot standby refuses appends with a clear error and serves reads")
    func standbyIsReadOnly() throws {
        let pair = try Pair.start(synchronous: true)
        defer { pair.remove() }
        let primary = try PostgresEventStore(url: pair.primary.url)
        _ = try primary.append(event("Searched"), to: "ada", expectedVersion: .noStream)
        let standby = try PostgresEventStore(url: pair.standby.url, createIfMissing: false)
        #expect(try standby.readAll(after: 0, limit: 10).map(\.streamID) == ["ada"])
        #expect(try standby.version(of: "ada") == 1)
        do {
            _ = try standby.append(event("Searched"), to: "ada", expectedVersion: .exactly(1))
            Issue.record("a standby took an append")
        } catch let error as EventStoreError {
            #expect("\(error)".contains("is read-only (a hot standby"), "\(error)")
            #expect("\(error)".contains("target_session_attrs=read-write"), "\(error)")
        }
        #expect(try primary.version(of: "ada") == 1)
    }

    @Test("failover with a synchronous standby: writers on a multi-host URL carry on, every acknowledged append survives (even with the standby away first), the follower skips and repeats nothing")
    func synchronousFailoverLosesNothing() throws {
        let outcome = try Self.failover(synchronous: true)
        #expect(outcome.lost.isEmpty, "acknowledged appends missing after the failover: \(outcome.lost.count)")
    }

    @Test("failover with an asynchronous standby: what the primary acknowledged while the standby was away is lost, and nothing else; the promoted log is whole")
    func asynchronousFailoverIsCounted() throws {
        let outcome = try Self.failover(synchronous: false)
        // Asynchronous replication loses what the primary acknowledged and the standby never
        // received: here, the appends made while the standby was down (docs/how-to/replicas.md).
        print("asynchronous failover: \(outcome.lost.count) of \(outcome.acknowledged) acknowledged appends lost")
        #expect(outcome.whileStandbyAway > 0, "no append was acknowledged while the standby was down: the fault did not happen")
        // Every one of those is gone (the standby never received them); some acknowledged
        // just before it went down may be gone too (not yet streamed: the replication lag).
        #expect(outcome.lostWhileAway == outcome.whileStandbyAway, "of \(outcome.whileStandbyAway) appends acknowledged while the standby was away, \(outcome.lostWhileAway) are lost")
        print("asynchronous failover: \(outcome.lost.count - outcome.lostWhileAway) appends acknowledged before the standby left were not yet streamed and are lost too")
    }

    /// What a failover test saw.
    struct Outcome {
        /// Appends acknowledged to the writers in the whole test.
        var acknowledged: Int
        /// Appends acknowledged while the standby was down.
        var whileStandbyAway: Int
        /// Acknowledged appends the promoted server does not have.
        var lost: Set<UUID>
        /// How many of those were acknowledged while the standby was down.
        var lostWhileAway: Int
    }

    /// Starts a primary and a standby; three writers append (own streams, exact expected
    /// versions) through a `read-write` multi-host URL and a follower reads the standby (with
    /// a synchronous standby through a `prefer-standby` multi-host URL, which also reaches the
    /// primary). After some appends the standby goes down, the writers go on against the
    /// primary for a while (asynchronous: acknowledged without the standby; synchronous: they
    /// wait for it), then the primary is killed (`pg_ctl stop -m immediate`), the standby
    /// comes back alone and is promoted, and the writers go on until each has had
    /// `afterPromotion` more appends acknowledged. Then: nothing on the new primary twice, versions 1…n, the chain
    /// verifies, the follower saw the promoted log once in order; returns what was lost.
    static func failover(synchronous: Bool) throws -> Outcome {
        let pair = try Pair.start(synchronous: synchronous)
        defer { pair.remove() }
        _ = try PostgresEventStore(url: pair.primary.url)
        try waitForReplay(pair)

        let writers = 3, killAfter = 120, afterPromotion = 20
        let acknowledged = Mutex<[UUID]>([])
        let promotedAt = Mutex<[Int]>(Array(repeating: -1, count: writers))   // each writer's count at promotion
        let acknowledgedByPromoted = Mutex<Set<UUID>>([])
        let rebased = Counter(0)
        let promotedFlag = Counter(0)
        let failures = Failures()
        let writersLeft = Counter(writers)
        let writeURL = pair.multiHost("read-write")
        let threads = (0..<writers).map { writer in
            Thread {
                defer { writersLeft.add(-1) }
                do {
                    let store = try PostgresEventStore(url: writeURL, createIfMissing: false)
                    var version: Int64 = 0, count = 0
                    let deadline = Date().addingTimeInterval(120)
                    // Until `afterPromotion` appends were acknowledged by the promoted server.
                    while promotedFlag.value == 0 || count < promotedAt.withLock({ $0[writer] }) + afterPromotion {
                        if promotedFlag.value == 1, promotedAt.withLock({ $0[writer] }) < 0 {
                            promotedAt.withLock { $0[writer] = count }
                        }
                        let proposed = event("Searched", #"{"w":\#(writer),"n":\#(count)}"#)
                        version = try appendRetrying(proposed, to: "writer-\(writer)", after: version, store: store, until: deadline, rebased: rebased)
                        acknowledged.withLock { $0.append(proposed.id) }
                        if promotedFlag.value == 1 { acknowledgedByPromoted.withLock { _ = $0.insert(proposed.id) } }
                        count += 1
                    }
                } catch {
                    failures.add("writer \(writer): \(error)")
                }
            }
        }

        let seen = Mutex<[RecordedEvent]>([])
        let followerStop = Counter(0)
        let followerFailed = Failures()
        let followURL = synchronous ? pair.multiHost("prefer-standby") : pair.standby.url
        let followerThread = Thread {
            do {
                let follower = try PostgresFollower(url: followURL, recheckInterval: .milliseconds(200))
                while followerStop.value == 0 {
                    do {
                        let batch = try follower.next(timeout: .milliseconds(100), limit: 50)
                        seen.withLock { $0 += batch }
                    } catch EventStoreError.unavailable {
                        // Both servers are down for a moment: keep the position, try again.
                    }
                }
            } catch {
                followerFailed.add("follower: \(error)")
            }
        }
        followerThread.start()
        threads.forEach { $0.start() }

        let killDeadline = Date().addingTimeInterval(60)
        while acknowledged.withLock({ $0.count }) < killAfter && Date() < killDeadline && writersLeft.value > 0 {
            Thread.sleep(forTimeInterval: 0.005)
        }
        try pair.standby.crash()
        let beforeStandbyLeft = acknowledged.withLock { $0.count }
        Thread.sleep(forTimeInterval: 0.5)
        let whileStandbyAway = acknowledged.withLock { $0.count } - beforeStandbyLeft
        try pair.primary.crash()
        try pair.standby.restart()
        try pair.standby.promote()
        promotedFlag.add(1)
        print("failover (\(synchronous ? "synchronous" : "asynchronous")): \(whileStandbyAway) appends acknowledged while the standby was away")
        if synchronous {
            #expect(whileStandbyAway == 0, "the primary acknowledged appends its synchronous standby had not applied")
        }


        let deadline = Date().addingTimeInterval(120)
        while writersLeft.value > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(writersLeft.value == 0, "the writers did not finish after the failover")
        #expect(failures.all.isEmpty, "\(failures.all)")

        let promoted = try PostgresEventStore(url: pair.standby.url, createIfMissing: false)
        let log = try promoted.readAll(after: 0, limit: 1_000_000)
        // The follower catches up with the promoted log, then stops.
        let caughtUp = Date().addingTimeInterval(30)
        while seen.withLock({ $0.last?.position ?? 0 }) < (log.last?.position ?? 0) && Date() < caughtUp {
            Thread.sleep(forTimeInterval: 0.01)
        }
        followerStop.add(1)
        while !followerThread.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(followerFailed.all.isEmpty, "\(followerFailed.all)")

        let ids = log.map(\.id)
        #expect(Set(ids).count == ids.count, "an event is in the promoted log twice")
        let missingAfterPromotion = acknowledgedByPromoted.withLock { $0 }.subtracting(ids)
        #expect(missingAfterPromotion.isEmpty, "\(missingAfterPromotion.count) appends acknowledged after the promotion are missing")
        for writer in 0..<writers {
            let versions = log.filter { $0.streamID == "writer-\(writer)" }.map(\.version)
            #expect(versions == Array(1...Int64(max(1, versions.count))), "writer-\(writer)'s versions are not 1…n")
            #expect(versions.count >= afterPromotion, "writer-\(writer) has \(versions.count) events")
        }
        var verifier = try LogVerifier(store: promoted)
        _ = try verifier.verifyLog()
        let followed = seen.withLock { $0 }
        #expect(followed.map(\.id) == ids, "the follower saw \(followed.count) events, the promoted log holds \(ids.count)")

        // With a synchronous standby no writer finds its stream behind what it was told.
        if synchronous { #expect(rebased.value == 0, "\(rebased.value) appends found their stream behind the acknowledged version") }
        if !synchronous { print("asynchronous failover: \(rebased.value) appends found their stream behind and decided again") }
        let acked = acknowledged.withLock { $0 }
        let lost = Set(acked).subtracting(ids)
        let away = acked[beforeStandbyLeft..<(beforeStandbyLeft + whileStandbyAway)]
        return Outcome(acknowledged: acked.count, whileStandbyAway: whileStandbyAway, lost: lost, lostWhileAway: away.filter(lost.contains).count)
    }

    /// Appends `proposed` at version `after + 1`, riding out the failover: an unavailable
    /// server is retried (with backoff) until `deadline`; a retry that finds the event already
    /// there (its reply was lost) counts as done. A stream found at another version (the
    /// promoted server lacks appends the old primary acknowledged) is appended to at the
    /// version it has, as the command runner does after reading the stream again, and
    /// counted in `rebased`. Returns the stream's new version.
    static func appendRetrying(_ proposed: ProposedEvent, to stream: String, after version: Int64, store: PostgresEventStore,
                               until deadline: Date, rebased: Counter) throws -> Int64 {
        var expected = version
        while true {
            do {
                return try store.append(proposed, to: stream, expectedVersion: .exactly(expected)).streamVersion
            } catch let error as EventStoreError where error.isRetryable {
                // The server is gone (or not yet promoted), or the reply was lost: the same
                // event id again is safe.
                guard Date() < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            } catch EventStoreError.wrongExpectedVersion(_, _, let actual) {
                let last = try store.read(stream: stream, from: actual, direction: .backwards, limit: 1)
                if let landed = last.first, landed.id == proposed.id { return landed.version }   // the first try landed
                rebased.add(1)
                expected = actual
            }
        }
    }

    /// Waits until the standby has replayed everything the primary has written so far.
    static func waitForReplay(_ pair: Pair) throws {
        let primary = try PostgresConnection(conninfo: pair.primary.url)
        let target = try #require(PostgresResultText.value(try primary.execute("SELECT pg_current_wal_lsn()")))
        let standby = try PostgresConnection(conninfo: pair.standby.url)
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let caughtUp = PostgresResultText.value(try standby.execute("SELECT pg_last_wal_replay_lsn() >= '\(target)'::pg_lsn"))
            if caughtUp == "t" { return }
            Thread.sleep(forTimeInterval: 0.01)
        }
        Issue.record("the standby did not replay up to \(target) in 30 s")
    }
}

extension EventStoreError {
    /// Whether the same append may simply be sent again: the server was unreachable, or the
    /// reply to an append was lost.
    var isRetryable: Bool {
        switch self {
        case .unavailable, .outcomeUnknown: return true
        default: return false
        }
    }
}
