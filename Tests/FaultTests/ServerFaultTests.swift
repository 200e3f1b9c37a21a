import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StorePostgres
import Synchronization
import TestSupport
import Testing

/// The PostgreSQL server crashes (immediate shutdown: every session cut, recovery at the next
/// start) and restarts under writers, a follower and a projector. Each test runs a private
/// server of its own: the shared test server must never be restarted under other tests.
@Suite("Faults: the PostgreSQL server crashes and restarts")
struct ServerFaultTests {
    /// How often the server is crashed and restarted in each test (the kills per scenario).
    static var restarts: Int { max(1, FaultSettings.iterations) }

    /// Crashes and restarts `server` ``restarts`` times, up 0.3–1.2 s and down for a time
    /// drawn from `down` each time (seeded).
    /// - Returns: the seed and the moments, for failure messages.
    static func crashAndRestart(_ server: PrivatePostgres, seed: UInt64, down: ClosedRange<Double>) throws -> String {
        var random = SeededRandom(seed: seed)
        var moments: [String] = []
        for _ in 0..<restarts {
            let up = Double.random(in: 0.3...1.2, using: &random), downtime = Double.random(in: down, using: &random)
            moments.append(String(format: "up %.2f s, down %.2f s", up, downtime))
            Thread.sleep(forTimeInterval: up)
            try server.crash()
            Thread.sleep(forTimeInterval: downtime)
            try server.restart()
        }
        return "seed \(FaultSettings.seed) (\(moments.joined(separator: "; ")))"
    }

    @Test("appends under restarts: a failed command is one Error: line with exit 69; retries with the same ids or request id never duplicate; every acknowledged append is there once, batches whole, versions gapless, the log verifies")
    func appendsUnderRestarts() throws {
        let server = try PrivatePostgres.start()
        defer { server.remove() }
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = server.url + "?schema=evtool"
        try #require(try Processes.run(Binaries.evtool, ["init", "--store", cli]).status == 0)

        // Fault drivers append batches and retry through the restarts with the same event ids;
        // evtool processes record commands with request ids, and are rerun with the same id
        // when they fail.
        let drivers = try (0..<2).map { index in
            try Processes.start(Binaries.driver, ["append", "--store", server.url, "--schema", "evtool", "--acks", directory.path + "/acks-\(index)",
                                                  "--seed", String(FaultSettings.seed &+ 900 &+ UInt64(index)), "--seconds", "600", "--retry-for", "60"])
        }
        let stop = StopFlag()
        let writers = (0..<2).map { index in CommandWriter(index: index, store: cli) }
        let threads = writers.map { writer in Thread { writer.run(until: stop) } }
        threads.forEach { $0.start() }

        let context = try Self.crashAndRestart(server, seed: FaultSettings.seed &+ 910, down: 0...0.5)
        // Let everyone get going again after the last restart, then stop them.
        Thread.sleep(forTimeInterval: 0.5)
        stop.request()
        drivers.forEach { $0.send(SIGINT) }
        var acknowledged: [UUID] = []
        var driverFailures = 0, unknownOutcomes = 0
        for (index, driver) in drivers.enumerated() {
            let result = try Self.finish(driver)
            #expect(result.status == 0 && !result.wasSignaled, "\(context): driver \(index): \(result)")
            let summary = try? JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [String: Int]
            #expect(summary != nil, "\(context): driver \(index) printed no summary: \(result)")
            driverFailures += (summary?["unavailable"] ?? 0) + (summary?["unknown"] ?? 0)
            unknownOutcomes += summary?["unknown"] ?? 0
            let ids = try String(contentsOfFile: directory.path + "/acks-\(index)", encoding: .utf8).split(separator: "\n").map { UUID(uuidString: String($0)) }
            #expect(!ids.contains(nil), "\(context): driver \(index): a torn acknowledgement line")
            acknowledged += ids.compactMap { $0 }
        }
        while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.02) }
        // The drivers are documented to retry; each restart cut their connections while they appended.
        #expect(driverFailures >= Self.restarts, "\(context): the drivers met only \(driverFailures) failed tries in \(Self.restarts) restarts")

        let store = try PostgresEventStore(url: server.url, schema: "evtool")
        let events = try LogChecks.events(in: store)
        #expect(LogChecks.problems(in: events) == [], "\(context)")
        try LogChecks.expectVerifies(cli, context)
        var occurrences: [UUID: Int] = [:]
        for event in events { occurrences[event.id, default: 0] += 1 }
        let missing = acknowledged.filter { occurrences[$0] != 1 }
        #expect(missing.isEmpty, "\(context): \(missing.count) of \(acknowledged.count) acknowledged events are not in the log exactly once")

        // Commands: every one that was acknowledged is recorded once, whatever its retries.
        var requests: [String: Int] = [:]
        for event in events where event.type != "FaultProbe" {
            let metadata = try JSONSerialization.jsonObject(with: event.metadata) as? [String: Any]
            requests[metadata?["requestID"] as? String ?? "none", default: 0] += 1
        }
        let commands = writers.flatMap { $0.outcome.withLock { $0.acknowledged } }
        let failures = writers.flatMap { $0.outcome.withLock { $0.failures } }
        let reruns = writers.reduce(0) { $0 + $1.outcome.withLock { $0.alreadyRecorded } }
        #expect(writers.flatMap { $0.outcome.withLock { $0.errors } } == [], "\(context): the command writers stopped early")
        #expect(commands.count > 0, "\(context): no command was recorded")
        #expect(commands.filter { requests[$0] != 1 } == [], "\(context): acknowledged requests not recorded exactly once")
        #expect(requests.filter { $0.value > 1 }.isEmpty, "\(context): requests recorded more than once: \(requests.filter { $0.value > 1 })")
        #expect(!failures.isEmpty, "\(context): no evtool command failed while the server was down: the test did not test that")
        for failure in failures {
            #expect(!failure.wasSignaled && failure.status == 69, "\(context): \(failure)")
            let lines = failure.errors.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.isEmpty }
            #expect(lines.count == 1 && (lines[0].hasPrefix("Error: the store is unavailable") || lines[0].hasPrefix("Error: the append's outcome is unknown")),
                    "\(context): \(failure)")
        }
        FaultSettings.report("server restarts under appends (PostgreSQL): \(Self.restarts) restarts survived, \(acknowledged.count) acknowledged driver events and \(commands.count) evtool commands checked (log holds \(events.count)); \(driverFailures) failed driver tries retried (\(unknownOutcomes) of unknown outcome), \(failures.count) evtool runs exited 69 in one line and were rerun (\(reruns) found already recorded)")
    }

    @Test("log --follow and project --follow ride out restarts: every event printed once in position order, views equal a rebuild")
    func followersAcrossRestarts() throws {
        let server = try PrivatePostgres.start()
        defer { server.remove() }
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let cli = server.url + "?schema=evtool"
        let store = try PostgresEventStore(url: server.url, schema: "evtool")
        let writer = ActivityWriter(store: store, seed: FaultSettings.seed &+ 920)
        writer.record(50)   // a backlog for the follower to start with
        try #require(writer.errors == [], "the backlog")

        let followed = directory.path + "/followed.jsonl"
        // Standard output to a file: a pipe nobody reads before the end would fill and stall it.
        let follower = try Processes.start("/bin/bash", ["-c", #"exec "$0" log --follow --json --store "$1" > "$2""#, Binaries.evtool, cli, followed])
        let projector = try Processes.start("/bin/bash", ["-c", #"exec "$0" project --follow --store "$1" > "$2""#, Binaries.evtool, cli, directory.path + "/projector.out"])
        let stop = StopFlag()
        let thread = Thread { writer.run(until: stop) }
        thread.start()

        // Down long enough that the followers must notice: a store call rides out a shorter
        // outage by itself (waitForEvents reconnects within its 500 ms).
        let context = try Self.crashAndRestart(server, seed: FaultSettings.seed &+ 930, down: 0.6...1.0)
        Thread.sleep(forTimeInterval: 0.5)
        stop.request()
        while !thread.isFinished { Thread.sleep(forTimeInterval: 0.02) }
        #expect(writer.errors == [], "\(context): the writer")

        // Wait for both to reach the head, then stop them as Ctrl-C would.
        let events = try LogChecks.events(in: store)
        let head = events.last?.position ?? 0
        let deadline = Date().addingTimeInterval(30)
        // The server is up again, and bash made the file before the follower started.
        func lines() throws -> [Substring] { try String(contentsOfFile: followed, encoding: .utf8).split(separator: "\n") }
        func viewsAtHead() throws -> Bool {
            let statuses = try store.projectionStatuses().filter(\.isActive)
            return statuses.count == Views.all.count && statuses.allSatisfy { $0.position == head }
        }
        while try (lines().count < events.count || !viewsAtHead()), follower.isRunning, projector.isRunning, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        follower.send(SIGINT)
        projector.send(SIGINT)
        let followerResult = try Self.finish(follower), projectorResult = try Self.finish(projector)
        #expect(followerResult.status == 0 && !followerResult.wasSignaled, "\(context): the follower: \(followerResult)")
        #expect(projectorResult.status == 0 && !projectorResult.wasSignaled, "\(context): the projector: \(projectorResult)")

        // The follower: every event once, in position order, nothing skipped across restarts.
        let printed = try lines().map { line -> (position: Int64, id: String) in
            let record = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            return ((record?["position"] as? NSNumber)?.int64Value ?? -1, record?["id"] as? String ?? "?")
        }
        let expected = events.map { (position: $0.position, id: $0.id.lowercaseString) }
        let firstDifference = zip(printed, expected).enumerated().first { $1.0.position != $1.1.position || $1.0.id != $1.1.id }?.offset
        #expect(printed.count == expected.count && firstDifference == nil,
                "\(context): the follower printed \(printed.count) events, the log holds \(expected.count); first difference at line \(firstDifference.map { String($0 + 1) } ?? "-")")
        let reconnections = Self.messages(followerResult.errors, context: "\(context): the follower")
        #expect(reconnections >= 1, "\(context): the follower never lost the store, so the test did not test that: \(followerResult.errors)")

        // The projector: its views equal a rebuild from scratch, with no catching up after it.
        #expect(try LogChecks.viewsDifferingFromRebuild(store) == [], "\(context)")
        let projectorReconnections = Self.messages(projectorResult.errors, context: "\(context): the projector",
                                                   also: ["views at position", "advancing ", "another projector advances"])
        #expect(projectorReconnections >= 1, "\(context): the projector never lost the store: \(projectorResult.errors)")
        try LogChecks.expectVerifies(cli, context)

        // A server that is down before a command starts: exit 69 in one line, for followers too.
        try server.stop()
        let refused = try Self.expectRefusedWhileDown(cli, context: context)
        FaultSettings.report("server restarts under followers (PostgreSQL): \(Self.restarts) restarts survived by log --follow (\(reconnections) reconnections) and project --follow (\(projectorReconnections)), \(events.count) events followed once in order, views equal a rebuild; \(refused) commands on the stopped server exited 69 in one line")
    }

    /// Waits for a process that was asked to stop (SIGINT) to end: up to 30 s, then SIGKILL
    /// (which the caller's checks report as a failure), so a process that ignores the request
    /// fails the test instead of hanging it.
    static func finish(_ process: Processes.Running) throws -> Processes.Result {
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { process.send(SIGKILL) }
        return try process.finish()
    }

    /// Checks that standard error holds only the reconnecting messages (and lines starting
    /// with `also`), each loss followed by a return. Returns how many times the store came back.
    static func messages(_ errors: String, context: String, also allowed: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) -> Int {
        var lost = 0, back = 0
        for line in errors.split(separator: "\n") {
            if line.hasPrefix("lost the store (") { lost += 1 }
            else if line.hasPrefix("the store is back after ") { back += 1 }
            else if !allowed.contains(where: { line.hasPrefix($0) }) { Issue.record("\(context): unexpected line: \(line)", sourceLocation: sourceLocation) }
        }
        #expect(lost == back, "\(context): lost the store \(lost) times, back \(back) times", sourceLocation: sourceLocation)
        return back
    }

    /// With the server stopped, recording, querying, following and verifying each end at once
    /// with exit 69 and one `Error:` line. Returns how many commands were tried.
    static func expectRefusedWhileDown(_ cli: String, context: String) throws -> Int {
        let commands: [[String]] = [
            ["search", "--user", "ada", "--keyword", "jazz", "--location", "Los Angeles", "--request-id", "down-1"],
            ["favorites", "--user", "ada"],
            ["log"], ["log", "--follow", "--json"], ["project"], ["project", "--follow"], ["stats"], ["verify"],
        ]
        for command in commands {
            let started = Date()
            let result = try Processes.run(Binaries.evtool, command + ["--store", cli])
            let lines = result.errors.split(separator: "\n")
            #expect(!result.wasSignaled && result.status == 69 && result.output.isEmpty, "\(context): \(command) on a stopped server: \(result)")
            // With --json the one line is a JSON error object with the exit code (Evtool.report).
            let prefix = command.contains("--json") ? #"{"code":69,"kind":"unavailable","message":""# : "Error: "
            #expect(lines.count == 1 && lines.first?.hasPrefix(prefix) == true, "\(context): \(command) on a stopped server: \(result.errors)")
            #expect(Date().timeIntervalSince(started) < 15, "\(context): \(command) took \(Date().timeIntervalSince(started)) s to give up")
        }
        return commands.count
    }
}

/// Runs `evtool search` and `evtool favorite` with request ids one after another, as a client
/// would; a run that fails is rerun with the same request id until it succeeds.
final class CommandWriter: Sendable {
    struct Outcome {
        /// Request ids evtool acknowledged (recorded, or found already recorded).
        var acknowledged: [String] = []
        /// Reruns that found the request already recorded (an earlier run's outcome was lost).
        var alreadyRecorded = 0
        /// Runs that failed.
        var failures: [Processes.Result] = []
        /// What stopped the writer early: evtool could not be started, or a failure that
        /// rerunning does not cure (the test expects none).
        var errors: [String] = []
    }

    let index: Int
    let store: String
    let outcome = Mutex(Outcome())

    init(index: Int, store: String) {
        self.index = index
        self.store = store
    }

    func run(until stop: StopFlag) {
        var count = 0
        while !stop.isRequested {
            let user = "writer-\(index)-\(count % 5)"
            let request = "w\(index)-\(count)"
            let arguments = count.isMultiple(of: 2)
                ? ["search", "--user", user, "--keyword", "k\(count)", "--location", "Los Angeles"]
                : ["favorite", "--user", user, "--listing", "L\(index)-\(count)", "--name", "Show \(count)", "--venue", "Hall",
                   "--date", "2026-12-05 19:30:00", "--category", "Music"]
            let started = Date()
            while true {
                let result: Processes.Result
                do {
                    result = try Processes.run(Binaries.evtool, arguments + ["--request-id", request, "--store", store])
                } catch {
                    outcome.withLock { $0.errors.append("\(request): evtool did not run: \(error)") }
                    return
                }
                if result.status == 0 {
                    outcome.withLock {
                        $0.acknowledged.append(request)
                        if result.output.contains("already recorded") { $0.alreadyRecorded += 1 }
                    }
                    break
                }
                outcome.withLock { $0.failures.append(result) }
                // Anything but the store being out of reach will not pass by rerunning.
                if result.status != 69 || Date().timeIntervalSince(started) > 60 {
                    outcome.withLock { $0.errors.append("\(request): gave up after \(Int(Date().timeIntervalSince(started))) s: \(result)") }
                    return
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            count += 1
        }
    }
}

/// Records simulated users' commands through the command runner with request ids, retrying a
/// command with the same request id while the store is out of reach.
final class ActivityWriter: Sendable {
    private let runner: CommandRunner
    private let generator: Mutex<ActivityGenerator>
    private let count = Mutex(0)
    private let failures = Mutex<[String]>([])

    /// Commands that failed for good (anything but the store being out of reach, or that
    /// for 60 s): the test expects none.
    var errors: [String] { failures.withLock { $0 } }

    init(store: any EventStore, seed: UInt64) {
        runner = CommandRunner(store: store)
        generator = Mutex(ActivityGenerator(users: 30, listings: 60, seed: seed))
    }

    /// Records `commands` commands.
    func record(_ commands: Int) {
        for _ in 0..<commands { recordOne() }
    }

    func run(until stop: StopFlag) {
        while !stop.isRequested { recordOne() }
    }

    private func recordOne() {
        let action = generator.withLock { $0.next() }
        let index = count.withLock { value in defer { value += 1 }; return value }
        let context = CommandContext(userID: action.userID, source: "server-faults", occurredAt: Timestamp.now(), requestID: "activity-\(index)")
        let started = Date()
        while Date().timeIntervalSince(started) < 60 {
            do {
                _ = try runner.handle(action.command, context: context)
                return
            } catch EventStoreError.unavailable, EventStoreError.outcomeUnknown, CommandError.conflict {
                Thread.sleep(forTimeInterval: 0.05)
            } catch {
                failures.withLock { $0.append("recording \(action.command) for \(action.userID): \(error)") }
                return
            }
        }
        failures.withLock { $0.append("recording \(action.command) for \(action.userID) did not get through in 60 s") }
    }
}

/// Tells writer threads to finish what they are doing and stop.
final class StopFlag: Sendable {
    private let flag = Atomic<Bool>(false)
    var isRequested: Bool { flag.load(ordering: .relaxed) }
    func request() { flag.store(true, ordering: .relaxed) }
}
