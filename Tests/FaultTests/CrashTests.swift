import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StoreSQLite
import TestSupport
import Testing

/// kill -9 at seeded random moments during appends, a batched import, a migration and a
/// rebuild; after each kill the store must open sound, and rerunning must finish the job.
@Suite("Faults: kill -9 at random moments", .serialized)
struct CrashTests {
    @Test("appends: every acknowledged event is there exactly once, no batch is partial, no version gap", arguments: StoreKind.underTest)
    func appends(kind: StoreKind) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let target = try FaultStore.make(kind, name: "appends", in: directory.path)
        defer { target.remove() }
        var random = SeededRandom(seed: FaultSettings.seed)
        var acknowledged: [UUID] = []
        var kills = 0
        for iteration in 0..<FaultSettings.iterations {
            let seed = FaultSettings.seed &+ UInt64(iteration)
            let acks = directory.path + "/acks-\(iteration)"
            let driver = try Processes.start(Binaries.driver, ["append"] + target.driverArguments + ["--acks", acks, "--seed", String(seed)])
            // Let it get going (its first acknowledgement), then kill it somewhere in the next 300 ms.
            func acknowledgedBytes() throws -> Int {
                guard FileManager.default.fileExists(atPath: acks) else { return 0 }
                return try FileManager.default.attributesOfItem(atPath: acks)[.size] as? Int ?? 0
            }
            let started = ContinuousClock.now
            while try acknowledgedBytes() == 0, driver.isRunning, ContinuousClock.now - started < .seconds(30) {
                Thread.sleep(forTimeInterval: 0.002)
            }
            let wasAppending = try acknowledgedBytes() > 0 && driver.isRunning
            Thread.sleep(forTimeInterval: Double.random(in: 0...0.3, using: &random))
            driver.send(SIGKILL)
            let result = try driver.finish()
            // The fault must have happened: the driver appends forever, so only the kill ends it.
            #expect(result.wasSignaled && result.status == SIGKILL, "seed \(seed): the driver should have been running until killed: \(result)")
            if result.wasSignaled && result.status == SIGKILL { kills += 1 }
            try #require(wasAppending, "seed \(seed): the driver acknowledged nothing in 30 s, so the kill did not land during appends: \(result)")
            let ids = try String(contentsOfFile: acks, encoding: .utf8).split(separator: "\n").map { UUID(uuidString: String($0)) }
            #expect(!ids.contains(nil), "seed \(seed): a torn acknowledgement line")
            #expect(!ids.isEmpty, "seed \(seed): killed before any append was acknowledged")
            acknowledged += ids.compactMap { $0 }

            #expect(try target.integrity() == "ok", "seed \(seed)")
            let events = try LogChecks.events(in: target.open())
            #expect(LogChecks.problems(in: events) == [], "seed \(seed)")
            try LogChecks.expectVerifies(target.cli, "seed \(seed)")
            var occurrences: [UUID: Int] = [:]
            for event in events { occurrences[event.id, default: 0] += 1 }
            let missing = acknowledged.filter { occurrences[$0] != 1 }
            #expect(missing.isEmpty, "seed \(seed): \(missing.count) acknowledged events are not in the log exactly once")
        }
        let total = try LogChecks.events(in: target.open()).count
        #expect(kills == FaultSettings.iterations, "only \(kills) of \(FaultSettings.iterations) kills landed while the driver appended")
        FaultSettings.report("appends on \(kind.testDescription): \(kills) kills survived, \(acknowledged.count) acknowledged events checked (log holds \(total))")
    }

    @Test("batched import: what is visible is whole batches, a prefix of the file; rerunning completes it", arguments: StoreKind.underTest)
    func batchedImport(kind: StoreKind) throws {
        let fixture = try SourceLog.make()
        defer { fixture.directory.remove() }
        let figures = try killCopyAndRerun(kind: kind, fixture: fixture, name: "import", seedOffset: 100,
                                           arguments: { ["import", fixture.exportFile, "--batch", "100", "--store", $0] }) { _, store, target, context throws in
            let events = try LogChecks.events(in: store)
            #expect(events.count == fixture.events.count && SourceLog.isPrefix(events, of: fixture.events), "\(context)")
            #expect(try Processes.run(Binaries.evtool, ["project", "--store", target.cli]).status == 0)
        }
        FaultSettings.report("import into \(kind.testDescription): \(figures.kills) kills survived of \(FaultSettings.iterations) runs (\(figures.partial) mid-copy, \(figures.missed) drawn after the run ended and redrawn), \(figures.checked) events checked after kills, \(fixture.events.count)-event file")
    }

    @Test("migrate from SQLite: the target is whole batches of the source; rerunning completes and verifies it", arguments: StoreKind.underTest)
    func migrate(kind: StoreKind) throws {
        let fixture = try SourceLog.make()
        defer { fixture.directory.remove() }
        let figures = try killCopyAndRerun(kind: kind, fixture: fixture, name: "migrate", seedOffset: 200,
                                           arguments: { ["migrate", "--from", "sqlite:\(fixture.sourcePath)", "--to", $0, "--batch", "100"] }) { rerun, store, _, context throws in
            #expect(rerun.output.contains("both logs hold the same events in the same order"), "\(context): \(rerun)")
            #expect(try LogChecks.events(in: store).count == fixture.events.count)
        }
        FaultSettings.report("migrate SQLite → \(kind.testDescription): \(figures.kills) kills survived of \(FaultSettings.iterations) runs (\(figures.partial) mid-copy, \(figures.missed) drawn after the run ended and redrawn), \(figures.checked) events checked after kills")
    }

    /// What a kill scenario did: kills that landed, kills after which the target held part of
    /// the source (neither nothing nor everything), kill moments that came after the run had
    /// ended (redrawn), and events checked after kills.
    struct KillFigures {
        var kills = 0, partial = 0, missed = 0, checked = 0
    }

    /// Copies the fixture's log into fresh targets with a command (import or migrate, in
    /// batches of 100), killed with SIGKILL at a seeded moment within its measured duration;
    /// after each kill the target must be sound, verify, and hold whole batches that are a
    /// prefix of the source; rerunning must succeed, pass `afterRerun`, and leave views
    /// equal to a rebuild from scratch. Every iteration's kill must land (see ``Kill/plan``).
    private func killCopyAndRerun(
        kind: StoreKind, fixture: SourceLog, name: String, seedOffset: UInt64, arguments: (String) -> [String],
        afterRerun: (Processes.Result, any EventStore & ProjectionStore, FaultStore, String) throws -> Void
    ) throws -> KillFigures {
        let batch = 100
        // One uninterrupted run, to time it.
        let timing = try FaultStore.make(kind, name: "timing", in: fixture.directory.path)
        defer { timing.remove() }
        let started = ContinuousClock.now
        let full = try Processes.run(Binaries.evtool, arguments(timing.cli))
        try #require(full.status == 0, "\(full)")
        var plan = Kill.Plan(duration: (ContinuousClock.now - started) / .seconds(1), seed: FaultSettings.seed &+ seedOffset)
        var figures = KillFigures()
        for iteration in 0..<FaultSettings.iterations {
            var landed = false
            for attempt in 0..<Kill.Plan.attempts where !landed {
                let target = try FaultStore.make(kind, name: "\(name)-\(iteration)-\(attempt)", in: fixture.directory.path)
                defer { target.remove() }
                let delay = plan.next()
                let outcome = try Kill.run(Binaries.evtool, arguments(target.cli), after: delay)
                let context = "iteration \(iteration), attempt \(attempt), killed after \(String(format: "%.3f", delay)) s"
                if outcome.landed {
                    landed = true
                    figures.kills += 1
                } else {
                    figures.missed += 1
                    plan.ranFor(outcome.elapsed)
                }
                if outcome.landed && target.exists {
                    #expect(try target.integrity() == "ok", "\(context)")
                    let events = try LogChecks.events(in: target.open())
                    figures.checked += events.count
                    if !events.isEmpty && events.count < fixture.events.count { figures.partial += 1 }
                    #expect(LogChecks.problems(in: events) == [], "\(context)")
                    #expect(events.count % batch == 0 || events.count == fixture.events.count, "\(context): \(events.count) events is not whole batches of \(batch)")
                    #expect(SourceLog.isPrefix(events, of: fixture.events), "\(context): not a prefix of the source")
                    try LogChecks.expectVerifies(target.cli, context)
                }
                let rerun = try Processes.run(Binaries.evtool, arguments(target.cli))
                #expect(rerun.status == 0, "\(context): \(rerun)")
                let store = try target.open()
                try afterRerun(rerun, store, target, context)
                #expect(try LogChecks.viewsDifferingFromRebuild(store) == [], "\(context)")
            }
            #expect(landed, "iteration \(iteration): \(plan)")
        }
        plan.expectSane(kills: figures.kills, partial: figures.partial, of: "\(name) into \(kind.testDescription)")
        return figures
    }

    @Test("rebuild: readers keep correct views through a kill; rerunning finishes with views equal to a rebuild from scratch", arguments: StoreKind.underTest)
    func rebuild(kind: StoreKind) throws {
        let fixture = try SourceLog.make()
        defer { fixture.directory.remove() }
        let target = try FaultStore.make(kind, name: "rebuild", in: fixture.directory.path)
        defer { target.remove() }
        try #require(try Processes.run(Binaries.evtool, ["import", fixture.exportFile, "--store", target.cli]).status == 0)
        let store = try target.open()
        try #require(try Processes.run(Binaries.evtool, ["project", "--store", target.cli]).status == 0)
        let started = ContinuousClock.now
        try #require(try Processes.run(Binaries.evtool, ["rebuild", "--store", target.cli]).status == 0)
        var plan = Kill.Plan(duration: (ContinuousClock.now - started) / .seconds(1), seed: FaultSettings.seed &+ 300)
        var kills = 0, missed = 0
        for iteration in 0..<FaultSettings.iterations {
            var landed = false
            for attempt in 0..<Kill.Plan.attempts where !landed {
                let delay = plan.next()
                let outcome = try Kill.run(Binaries.evtool, ["rebuild", "--store", target.cli], after: delay)
                let context = "iteration \(iteration), attempt \(attempt), killed after \(String(format: "%.3f", delay)) s"
                if outcome.landed { landed = true; kills += 1 } else { missed += 1; plan.ranFor(outcome.elapsed) }
                #expect(try target.integrity() == "ok", "\(context)")
                #expect(try LogChecks.viewsDifferingFromRebuild(store) == [], "\(context): the views readers see")
                try LogChecks.expectVerifies(target.cli, context)
                let rerun = try Processes.run(Binaries.evtool, ["rebuild", "--store", target.cli])
                #expect(rerun.status == 0, "\(context): \(rerun)")
                #expect(try LogChecks.viewsDifferingFromRebuild(store) == [], "\(context)")
                let statuses = try store.projectionStatuses()
                #expect(statuses.allSatisfy(\.isActive) && statuses.count == Views.all.count, "\(context): \(statuses)")
            }
            #expect(landed, "iteration \(iteration): \(plan)")
        }
        // A rebuild leaves nothing on disk that tells how far it got, so "mid-rebuild" is not
        // counted: every kill that landed ended a running rebuild.
        plan.expectSane(kills: kills, partial: nil, of: "rebuild on \(kind.testDescription)")
        #expect(LogChecks.problems(in: try LogChecks.events(in: store)) == [])
        FaultSettings.report("rebuild on \(kind.testDescription): \(kills) kills survived of \(FaultSettings.iterations) runs (\(missed) drawn after the run ended and redrawn) over \(fixture.events.count) events")
    }
}

/// Runs a program and kills it with SIGKILL after a delay, unless it ends first.
enum Kill {
    /// Whether the kill landed, and how long the program ran.
    struct Outcome {
        /// The program was still running when the kill was sent, and the kill ended it.
        var landed: Bool
        /// Seconds from its start to its end.
        var elapsed: Double
    }

    static func run(_ path: String, _ arguments: [String], after seconds: Double) throws -> Outcome {
        let started = ContinuousClock.now
        let running = try Processes.start(path, arguments)
        let deadline = started + .milliseconds(Int(seconds * 1_000))
        while running.isRunning, ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
        let wasRunning = running.isRunning
        if wasRunning { running.send(SIGKILL) }
        let result = try running.finish()
        let elapsed = (ContinuousClock.now - started) / .seconds(1)
        if !wasRunning || !(result.wasSignaled && result.status == SIGKILL) {
            // It finished on its own: it must have succeeded.
            #expect(result.status == 0 && !result.wasSignaled, "\(path) \(arguments): \(result)")
            return Outcome(landed: false, elapsed: elapsed)
        }
        return Outcome(landed: true, elapsed: elapsed)
    }

    /// Seeded kill moments within a run's measured duration, so that kills land: a moment
    /// that comes after the run ended (the machine got faster, or the timing run was slow) is
    /// redrawn within the shorter duration just seen, up to ``attempts`` times per kill.
    struct Plan: CustomStringConvertible {
        /// Kill moments tried per iteration before the scenario fails for want of a kill.
        static let attempts = 4
        private(set) var duration: Double
        private var random: SeededRandom
        private var drawn: [Double] = []

        init(duration: Double, seed: UInt64) {
            self.duration = duration
            random = SeededRandom(seed: seed)
        }

        /// The next moment: up to 90 % of the duration, so the kill falls inside the run.
        mutating func next() -> Double {
            let delay = Double.random(in: 0...(duration * 0.9), using: &random)
            drawn.append(delay)
            return delay
        }

        /// A run ended before its kill after `elapsed` seconds: draw later moments within that.
        mutating func ranFor(_ elapsed: Double) {
            duration = min(duration, elapsed)
        }

        var description: String {
            "no kill landed; the run took \(String(format: "%.3f", duration)) s, moments drawn: \(drawn.map { String(format: "%.3f", $0) }.joined(separator: ", ")) (seed \(FaultSettings.seed))"
        }

        /// Every iteration's kill landed; with more than three kills (the heavy run), at
        /// least one of them left a partial result behind, or the scenario never killed the
        /// command in the middle of its work.
        func expectSane(kills: Int, partial: Int?, of scenario: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(kills == FaultSettings.iterations, "\(scenario): \(kills) of \(FaultSettings.iterations) kills landed", sourceLocation: sourceLocation)
            if let partial, FaultSettings.iterations > 3 {
                #expect(partial > 0, "\(scenario): none of \(kills) kills came while the copy was part-way", sourceLocation: sourceLocation)
            }
        }
    }
}

/// A source log of simulated activity (recorded through the command runner) and its export.
struct SourceLog {
    let directory: TemporaryDirectory
    let sourcePath: String
    let exportFile: String
    let events: [RecordedEvent]

    static func make() throws -> SourceLog {
        let directory = try TemporaryDirectory()
        let sourcePath = directory.path + "/source.sqlite"
        var options = SQLiteEventStore.Options()
        options.durability = .normal
        let store = try SQLiteEventStore(path: sourcePath, options: options)
        let runner = CommandRunner(store: store)
        var generator = ActivityGenerator(users: 60, listings: 120, seed: FaultSettings.seed)
        var index = 0
        while try store.headPosition() < FaultSettings.events {
            let action = generator.next()
            let context = CommandContext(userID: action.userID, source: "fault-suite", occurredAt: Date(timeIntervalSince1970: 1_796_000_000 + Double(index)))
            _ = try runner.handle(action.command, context: context)
            index += 1
        }
        let exportFile = directory.path + "/export.jsonl"
        let export = try Processes.run(Binaries.evtool, ["export", "--store", "sqlite:\(sourcePath)"])
        try #require(export.status == 0, "\(export)")
        try export.output.write(toFile: exportFile, atomically: true, encoding: .utf8)
        return SourceLog(directory: directory, sourcePath: sourcePath, exportFile: exportFile, events: try LogChecks.events(in: store))
    }

    /// Whether `copied` is the first events of `source`, the same events in the same order
    /// (positions aside, which each store gives itself).
    static func isPrefix(_ copied: [RecordedEvent], of source: [RecordedEvent]) -> Bool {
        guard copied.count <= source.count else { return false }
        return zip(copied, source).allSatisfy { copy, original in
            copy.id == original.id && copy.streamID == original.streamID && copy.version == original.version
                && copy.type == original.type && copy.data == original.data && copy.metadata == original.metadata
                && copy.recordedAt == original.recordedAt
        }
    }
}
