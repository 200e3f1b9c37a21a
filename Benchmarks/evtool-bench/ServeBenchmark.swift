import Commands
import EventLog
import EvtoolKit
import Foundation
import Projections
import StorePostgres
import StoreSQLite
import Synchronization

/// `evtool-bench serve`: `evtool serve` (the release binary beside this one) on SQLite (durable)
/// and on PostgreSQL, loaded by Debian's `wrk` with 64 connections and the Lua scripts in
/// scripts/, beside baselines measured in the same run: raw one-row-per-transaction inserts of
/// the same rows, the same read through the library in-process, and one `evtool favorite`
/// process per request.
struct ServeBenchmark {
    /// Users preloaded into each store (each with one to three favorites).
    let users: Int
    /// Seconds of each `wrk` run and of the in-process read run.
    let seconds: Int
    /// Rows of the raw insert baselines; `evtool favorite` processes of the per-process rate.
    let rawRows: Int
    let processes: Int
    /// Where the stores, tokens and logs go.
    let directory: String
    /// `evtool` beside this benchmark's binary.
    let evtool: String
    /// The checkout: scripts/serve-*.lua and scripts/postgres.sh.
    let root: URL

    /// Connections `wrk` keeps open, threads it runs, threads the server serves with (and the
    /// in-process read baseline uses).
    static let connections = 64
    static let wrkThreads = 2
    static let serverThreads = 8

    /// One load run's figures.
    struct Load {
        var requests: Int
        var perSecond: Double
        /// Milliseconds.
        var p50: Double
        var p99: Double
        /// Responses that were not 2xx (not 201, for scripts/serve-favorite.lua's writes), and
        /// socket errors.
        var failures: Int
    }

    // MARK: - Preloading

    /// The summary every preloaded and benchmarked favorite carries.
    static let summary = ListingSummary(name: "Hamilton", venue: "Pantages Theatre", localDateTime: "2026-12-05 19:30:00", category: "Arts & Theatre")

    /// Appends `users` users (u1…uN) with one to three favorites each, 1,000 users per
    /// transaction, then catches the views up, so the server starts on a store like a day's.
    func preload(_ store: any EventStore & ProjectionStore & MultiStreamAppending) throws -> Int {
        var events = 0
        var parts: [StreamAppend] = []
        let now = Date()
        func flush() throws {
            guard !parts.isEmpty else { return }
            _ = try store.append(parts)
            parts.removeAll(keepingCapacity: true)
        }
        for user in 1...users {
            let id = "u\(user)"
            let metadata = try EventMetadata(userID: id, occurredAt: now, handledAt: now, correlationID: UUID.timeOrdered().lowercaseString,
                                             causationID: UUID.timeOrdered().lowercaseString, source: "evtool-bench").encoded()
            var proposed: [ProposedEvent] = []
            for favorite in 0..<(1 + user % 3) {
                let (type, data) = try DomainEvent.favorited(Favorited(listingID: "P\(user)-\(favorite)", summary: Self.summary)).encode()
                proposed.append(ProposedEvent(id: UUID.timeOrdered(), type: type, data: data, metadata: metadata))
            }
            events += proposed.count
            parts.append(StreamAppend(stream: UserStream.id(for: id), expectedVersion: .noStream, events: proposed))
            if parts.count == 1_000 { try flush() }
        }
        try flush()
        try Projector(store: store).catchUp()
        // A served store's kept Merkle tree follows its head (the server's KeptTreeFollower):
        // extend it now, so the server does not spend its first minute building it over the
        // preloaded log (on SQLite, on the connection every read and write waits for).
        _ = try LogTree.extendKept(store)
        return events
    }

    // MARK: - Baselines

    /// The favorites of random users read through the library in-process, on
    /// ``serverThreads`` threads for ``seconds``: reads/s, p50 and p99.
    func inProcessReads(_ store: any EventStore & ProjectionStore) throws -> Load {
        let application = Application(store: store)
        let deadline = ContinuousClock.now + .seconds(seconds)
        let results = Mutex<(latencies: [Double], failure: String?)>(([], nil))
        let started = ContinuousClock.now
        DispatchQueue.concurrentPerform(iterations: Self.serverThreads) { thread in
            var generator = SystemRandomNumberGenerator()
            var latencies: [Double] = []
            var failure: String?
            while ContinuousClock.now < deadline {
                let user = "u\(Int.random(in: 1...users, using: &generator))"
                let begun = ContinuousClock.now
                do {
                    _ = try application.view(Views.favorites, user: user)
                } catch {
                    failure = "\(error)"
                    break
                }
                latencies.append(Self.milliseconds(ContinuousClock.now - begun))
            }
            results.withLock { $0.latencies += latencies; if $0.failure == nil { $0.failure = failure } }
        }
        let elapsed = Self.milliseconds(ContinuousClock.now - started) / 1_000
        let (latencies, failure) = results.withLock { ($0.latencies, $0.failure) }
        if let failure { throw CLIError(message: "the in-process read failed: \(failure)", code: .failure) }
        let sorted = latencies.sorted()
        return Load(requests: sorted.count, perSecond: Double(sorted.count) / elapsed,
                    p50: Self.percentile(sorted, 0.50), p99: Self.percentile(sorted, 0.99), failures: 0)
    }

    /// The rate of one `evtool favorite` process per request, run one after another.
    func processPerRequest(store: String) throws -> Double {
        let started = ContinuousClock.now
        for index in 0..<processes {
            let result = try Self.run(evtool, ["favorite", "--user", "u\(1 + index % max(users, 1))", "--listing", "CLI\(index)-\(getpid())",
                                               "--name", Self.summary.name, "--venue", Self.summary.venue,
                                               "--date", Self.summary.localDateTime, "--category", Self.summary.category, "--store", store])
            guard result.status == 0 else {
                throw CLIError(message: "evtool favorite failed (status \(result.status)): \(result.errors.prefix(500))", code: .failure)
            }
        }
        return Double(processes) / (Self.milliseconds(ContinuousClock.now - started) / 1_000)
    }

    // MARK: - The server and the load

    /// A running `evtool serve` and its port.
    final class Server {
        let process: Process
        let port: Int
        /// An auditor token of the server (for `/metrics`).
        var auditorToken = ""
        init(process: Process, port: Int) { self.process = process; self.port = port }

        /// SIGTERM, then waits for the exit.
        func stop() {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
    }

    /// Starts `evtool serve` on `store` with a fresh tokens file; returns it and an app token.
    func startServer(store: String, label: String, extra: [String] = []) throws -> (Server, token: String) {
        let tokens = "\(directory)/\(label)-tokens.txt"
        try? FileManager.default.removeItem(atPath: tokens)
        let made = try Self.run(evtool, ["token", "create", "--role", "app", "--tokens", tokens, "--name", "bench"])
        guard made.status == 0 else { throw CLIError(message: "evtool token create failed: \(made.errors)", code: .failure) }
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let auditor = try Self.run(evtool, ["token", "create", "--role", "auditor", "--tokens", tokens, "--name", "bench-metrics"])
        guard auditor.status == 0 else { throw CLIError(message: "evtool token create failed: \(auditor.errors)", code: .failure) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: evtool)
        process.arguments = ["serve", "--tokens", tokens, "--listen", "127.0.0.1:0", "--threads", String(Self.serverThreads), "--store", store] + extra
        let output = Pipe()
        process.standardOutput = output
        // One log line per request: into a file, so the pipe never fills and stalls the server.
        let logPath = "\(directory)/\(label)-serve.log"
        guard FileManager.default.createFile(atPath: logPath, contents: nil) else {
            throw CLIError(message: "cannot create the server's log file '\(logPath)'", code: .failure)
        }
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(60)
        while !text.contains("\n"), Date() < deadline, process.isRunning {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
        }
        guard let line = text.split(separator: "\n").first, line.hasPrefix("listening on http://"),
              let port = line.split(separator: ":").last.flatMap({ Int($0) }) else {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            throw CLIError(message: "evtool serve did not start: \(text)\(log.suffix(800))", code: .failure)
        }
        let server = Server(process: process, port: port)
        server.auditorToken = auditor.output.trimmingCharacters(in: .whitespacesAndNewlines)
        return (server, token)
    }

    /// Runs `wrk` with a script of scripts/ (or, with none, GETs `path`) against the server,
    /// over `connections` connections (default ``connections``).
    func load(_ server: Server, script: String?, token: String, connections: Int = ServeBenchmark.connections, path urlPath: String = "") throws -> Load {
        var arguments = ["-t\(min(Self.wrkThreads, connections))", "-c\(connections)", "-d\(seconds)s", "--latency"]
        if let script {
            let path = root.appendingPathComponent("scripts/\(script)").path
            guard FileManager.default.fileExists(atPath: path) else {
                throw CLIError(message: "the wrk script '\(path)' is missing (run the benchmark from its checkout)", code: .failure)
            }
            arguments += ["-s", path]
        }
        let result = try Self.run("/usr/bin/wrk", arguments + ["http://127.0.0.1:\(server.port)\(urlPath)"],
                                  environment: ["EVTOOL_TOKEN": token, "EVTOOL_USERS": String(users)])
        guard result.status == 0 else { throw CLIError(message: "wrk failed (status \(result.status)): \(result.errors)", code: .failure) }
        return try Self.parseWrk(result.output)
    }

    /// Requests, requests/s, p50, p99 and failures from `wrk --latency`'s report.
    static func parseWrk(_ text: String) throws -> Load {
        var load = Load(requests: 0, perSecond: 0, p50: .nan, p99: .nan, failures: 0)
        var notCreated: Int?   // scripts/serve-favorite.lua's count of answers that were not 201
        var socketErrors = 0
        for raw in text.split(separator: "\n") {
            let fields = raw.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = fields.first else { continue }
            switch first {
            case "50%": load.p50 = fields.count > 1 ? duration(fields[1]) ?? .nan : .nan
            case "99%": load.p99 = fields.count > 1 ? duration(fields[1]) ?? .nan : .nan
            case "Requests/sec:": load.perSecond = fields.count > 1 ? Double(fields[1]) ?? 0 : 0
            default:
                if raw.contains("requests in"), let count = Int(first) { load.requests = count }
                if raw.hasPrefix("  Non-2xx or 3xx responses:"), let count = fields.last.flatMap({ Int($0) }) { load.failures += count }
                if raw.hasPrefix("  Socket errors:") {
                    for field in fields where Int(field.trimmingCharacters(in: CharacterSet(charactersIn: ","))) != nil {
                        socketErrors += Int(field.trimmingCharacters(in: CharacterSet(charactersIn: ","))) ?? 0
                    }
                }
                if raw.hasPrefix("answers other than 201 Created: ") { notCreated = fields.last.flatMap { Int($0) } }
            }
        }
        // A write answered 200 (nothing changed) is no new favorite: it fails the write run.
        load.failures = socketErrors + (notCreated ?? load.failures)
        guard load.requests > 0, !load.p50.isNaN, !load.p99.isNaN else {
            throw CLIError(message: "could not read wrk's report:\n\(text)", code: .failure)
        }
        return load
    }

    /// wrk's `12.34ms`, `850.00us`, `1.20s` in milliseconds.
    static func duration(_ text: Substring) -> Double? {
        for (suffix, factor) in [("us", 0.001), ("ms", 1.0), ("s", 1_000.0), ("m", 60_000.0)] where text.hasSuffix(suffix) {
            return Double(text.dropLast(suffix.count)).map { $0 * factor }
        }
        return nil
    }

    // MARK: - Running programs

    /// Runs a program to its end; its exit status, standard output and error.
    static func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Read both to the end before waiting, so neither pipe fills and stalls the child.
        let collected = Mutex<Data>(Data())
        let done = DispatchSemaphore(value: 0)
        let errorHandle = errors.fileHandleForReading
        Thread.detachNewThread {
            let data = errorHandle.readDataToEndOfFile()
            collected.withLock { $0 = data }
            done.signal()
        }
        let out = output.fileHandleForReading.readDataToEndOfFile()
        done.wait()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: collected.withLock { $0 }, as: UTF8.self))
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }

    static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.down)))]
    }
}
