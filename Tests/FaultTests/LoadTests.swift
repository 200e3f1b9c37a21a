import EventLog
import Foundation
import Projections
import StoreSQLite
import TestSupport
import Testing

/// Several OS processes record commands for the same users at once while a projector follows.
@Suite("Faults: concurrent load", .serialized)
struct LoadTests {
    @Test("4 processes on one SQLite file, 8 on PostgreSQL, and a following projector: every success is in the log once, no duplicate favorite, views equal a rebuild",
          arguments: StoreKind.underTest)
    func load(kind: StoreKind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let target = try FaultStore.make(kind, name: "load", in: directory.path)
        defer { target.remove() }
        let store = try target.open()
        let figures = try Load.run(target, processes: kind == .sqlite ? 4 : 8, seconds: FaultSettings.loadSeconds)
        try Load.check(store, figures: figures)
        try LogChecks.expectVerifies(target.cli, "after the load")
    }
}

/// Runs the load and checks what it left.
enum Load {
    struct Figures {
        var processes: Int
        var seconds: Double
        var commands = 0
        var recorded = 0
        var events = 0
        var latencies: [Int] = []
        var failures: [String] = []

        func percentile(_ p: Double) -> Double {
            let sorted = latencies.sorted()
            guard !sorted.isEmpty else { return 0 }
            return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]) / 1_000
        }
    }

    /// Starts `processes` fault drivers recording simulated actions for the same 40 users, and
    /// `evtool project --follow`; stops the projector with SIGINT once the drivers are done.
    static func run(_ target: FaultStore, processes: Int, seconds: Int) throws -> Figures {
        let projector = try Processes.start(Binaries.evtool, ["project", "--follow", "--store", target.cli])
        let started = ContinuousClock.now
        let drivers = try (0..<processes).map { index in
            try Processes.start(Binaries.driver, ["load"] + target.driverArguments + ["--seconds", String(seconds), "--seed", String(FaultSettings.seed &+ UInt64(index) &+ 700)])
        }
        var figures = Figures(processes: processes, seconds: 0)
        for (index, driver) in drivers.enumerated() {
            let result = try driver.finish()
            #expect(result.status == 0 && !result.wasSignaled, "driver \(index): \(result.errors)")
            guard let summary = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Any] else {
                Issue.record("driver \(index) printed no summary: \(result)")
                continue
            }
            let recorded = summary["recorded"] as? Int ?? 0, unchanged = summary["unchanged"] as? Int ?? 0
            // A driver that recorded nothing loaded nothing: the checks below would hold vacuously.
            #expect(recorded > 0, "driver \(index) recorded no command in \(seconds) s: \(result)")
            figures.recorded += recorded
            figures.commands += recorded + unchanged
            figures.events += summary["events"] as? Int ?? 0
            figures.latencies += summary["latenciesMicroseconds"] as? [Int] ?? []
            for failure in summary["failures"] as? [[String: Any]] ?? [] {
                figures.failures.append("\(failure["count"] ?? 0)× \(failure["error"] ?? "")")
                figures.commands += failure["count"] as? Int ?? 0
            }
        }
        figures.seconds = (ContinuousClock.now - started) / .seconds(1)
        // Let the projector see the last events, then stop it as Ctrl-C would.
        Thread.sleep(forTimeInterval: 1)
        projector.send(SIGINT)
        let stopped = try projector.finish()
        #expect(stopped.status == 0 && !stopped.wasSignaled, "the projector: \(stopped)")
        #expect(stopped.errors.split(separator: "\n").allSatisfy { $0.hasPrefix("views at position") || $0.hasPrefix("advancing ") }, "the projector: \(stopped.errors)")
        #expect(figures.failures.isEmpty, "commands failed: \(figures.failures)")
        FaultSettings.report(String(format: "load: %d processes on %@ for %.1f s: %d commands (%.0f/s), %d recorded, %d events; latency p50 %.1f ms, p99 %.1f ms; %d failures",
                                    processes, target.kind == .sqlite ? "one SQLite file" : "PostgreSQL", figures.seconds, figures.commands,
                                    Double(figures.commands) / figures.seconds, figures.recorded, figures.events,
                                    figures.percentile(0.5), figures.percentile(0.99), figures.failures.count))
        return figures
    }

    /// Every event the drivers reported is in the log once, no user favorited a listing twice
    /// without removing it between, and the views equal a rebuild from scratch.
    static func check(_ store: any EventStore & ProjectionStore, figures: Figures) throws {
        let events = try LogChecks.events(in: store)
        #expect(events.contains { $0.type == "Favorited" }, "the load favorited nothing, so the no-duplicate-favorite check checked nothing")
        #expect(events.count == figures.events, "the drivers reported \(figures.events) events recorded; the log holds \(events.count)")
        #expect(LogChecks.problems(in: events) == [])
        var favorites: [String: Set<String>] = [:]
        for event in events where event.type == "Favorited" || event.type == "Unfavorited" {
            guard let payload = try? JSONSerialization.jsonObject(with: event.data) as? [String: Any], let listing = payload["listingID"] as? String else {
                Issue.record("event \(event.position) has no listingID")
                continue
            }
            if event.type == "Favorited" {
                #expect(favorites[event.streamID, default: []].insert(listing).inserted, "\(event.streamID) favorited \(listing) twice (position \(event.position))")
            } else {
                #expect(favorites[event.streamID]?.remove(listing) != nil, "\(event.streamID) unfavorited \(listing), not a favorite (position \(event.position))")
            }
        }
        // The follower applied what it saw; a last catch-up takes it to the head.
        _ = try Projector(store: store).catchUp()
        #expect(try LogChecks.viewsDifferingFromRebuild(store) == [])
        for (user, listings) in favorites {
            let document = try Projector(store: store, projections: [Views.favorites]).document(Views.favorites, key: user)
            let shown = document?.items.map(\.listingID) ?? []
            #expect(Set(shown) == listings && shown.count == listings.count, "\(user)'s favorites view: \(shown), log: \(listings)")
        }
    }
}
