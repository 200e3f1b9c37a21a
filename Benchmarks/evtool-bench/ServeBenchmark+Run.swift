import CLibPQ
import EventLog
import Foundation
import StorePostgres
import StoreSQLite

extension BenchCommand {
    /// The `serve` suite: on SQLite, then on PostgreSQL (`--postgres`, or
    /// `EVTOOL_BENCH_POSTGRES_URL`, or a server of its own started with scripts/postgres.sh).
    static func runServe(users: Int, seconds: Int, quick: Bool, postgresURL: String?, directory: String, console: inout Console) throws {
        let evtool = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("evtool").path
        guard FileManager.default.isExecutableFile(atPath: evtool) else {
            throw CLIError(message: "the serve suite runs the evtool beside this benchmark, and there is none at '\(evtool)': build it (swift build -c release)", code: .failure)
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/wrk") else {
            throw CLIError(message: "the serve suite needs wrk (apt-get install wrk)", code: .failure)
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let bench = ServeBenchmark(users: users, seconds: seconds, rawRows: quick ? 300 : 3_000, processes: quick ? 5 : 40,
                                   directory: directory, evtool: evtool, root: root)
        preamble(&console, "evtool serve under wrk -t\(ServeBenchmark.wrkThreads) -c\(ServeBenchmark.connections) -d\(seconds)s (server --threads \(ServeBenchmark.serverThreads)), \(String(users).groupedThousands) users of 1-3 favorites each; SQLite (durable) and PostgreSQL")
        console.output("load before: \(loadAverage())")
        console.flush()

        // SQLite, synchronous=FULL.
        let path = "\(directory)/serve-bench.sqlite"
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try runServeStore(bench, label: "sqlite", store: "sqlite:\(path)", open: { try SQLiteEventStore(path: path) },
                          rawWrites: {
                              let raw = SQLiteBenchmark(directory: directory)
                              let rawPath = "\(directory)/serve-raw.sqlite"
                              defer { raw.remove(rawPath) }
                              let rows = Workload.rows(count: bench.rawRows, batchSize: 1, seed: 13)
                              return (Double(rows.count) / raw.rawInsert(rows, path: rawPath, oneTransaction: false),
                                      "raw SQLite: prepared INSERT, one transaction per row, synchronous=FULL", 3.0)
                          }, console: &console)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }

        // PostgreSQL: the URL given, or a server of this run's own.
        var own: String?
        var url = postgresURL ?? ProcessInfo.processInfo.environment["EVTOOL_BENCH_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if url == nil {
            let cluster = "\(directory)/postgres"
            let started = try ServeBenchmark.run("/bin/bash", [root.appendingPathComponent("scripts/postgres.sh").path, "start", cluster])
            guard started.status == 0 else {
                throw CLIError(message: "no PostgreSQL for the serve suite: give --postgres URL or EVTOOL_BENCH_POSTGRES_URL, or fix scripts/postgres.sh (it said: \(started.errors.suffix(400)))", code: .failure)
            }
            own = cluster
            url = started.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        defer { if let own { _ = try? ServeBenchmark.run("/bin/bash", [root.appendingPathComponent("scripts/postgres.sh").path, "stop", own]) } }
        guard let url else { return }
        var postgres = PostgresBenchmark(url: url)
        let schema = try postgres.freshSchema("serve")
        defer { postgres.drop(schema) }
        let storeURL = url + (url.contains("?") ? "&" : "?") + "schema=" + schema
        console.output("postgres: \(own == nil ? "the server given" : "a server of this run's own (scripts/postgres.sh)"), libpq \(PQlibVersion() / 10_000).\(PQlibVersion() % 100)")
        try runServeStore(bench, label: "postgres", store: storeURL, open: { try PostgresEventStore(url: url, schema: schema) },
                          rawWrites: {
                              let rawSchema = try postgres.freshSchema("serve_raw")
                              defer { postgres.drop(rawSchema) }
                              let rows = Workload.rows(count: bench.rawRows * 2, batchSize: 1, seed: 13)
                              return (Double(rows.count) / postgres.rawSingleInserts(rows, schema: rawSchema, writers: 8),
                                      "raw PostgreSQL: prepared single-row INSERT transactions over 8 connections", 1.0)
                          }, console: &console)
        console.output("load after: \(loadAverage())")
    }

    /// One store's run: preload, the in-process read, the server's reads and writes under wrk,
    /// the raw write baseline, one process per request; then each ratio against its target.
    static func runServeStore(_ bench: ServeBenchmark, label: String, store: String,
                              open: () throws -> any EventStore & ProjectionStore & MultiStreamAppending,
                              rawWrites: () throws -> (rate: Double, name: String, target: Double),
                              console: inout Console) throws {
        let started = ContinuousClock.now
        let events = try bench.preload(try open())
        console.output("\(label): preloaded \(String(bench.users).groupedThousands) users (\(String(events).groupedThousands) events), views caught up, in \(String(format: "%.1f", ServeBenchmark.milliseconds(ContinuousClock.now - started) / 1_000)) s")
        console.flush()
        let inProcess = try bench.inProcessReads(try open())
        console.output(line("\(label) in-process read (EvtoolKit, \(ServeBenchmark.serverThreads) threads)", inProcess, unit: "reads/s"))
        console.flush()

        // The raw write baseline before and after the server's runs (alternately, on a shared
        // machine); the writes are compared with the mean of the two.
        let rawBefore = try rawWrites()
        console.output("\(label) baseline (before): \(rawBefore.name): \(String(Int(rawBefore.rate.rounded())).groupedThousands) rows/s")
        console.flush()
        let (server, token) = try bench.startServer(store: store, label: label)
        let reads: ServeBenchmark.Load, writes: ServeBenchmark.Load
        var fewer: [(connections: Int, load: ServeBenchmark.Load)] = []
        do {
            defer { server.stop() }
            // What HTTP alone costs on this machine: a GET that touches no store.
            let health = try bench.load(server, script: nil, token: token, path: "/healthz")
            console.output(line("\(label) serve GET /healthz (no store, no token)", health, unit: "req/s"))
            // The first reads of each user go to the store and fill the server's view memory
            // (wrk's script draws the same users in every run): that run is shown as it is,
            // and the measured reads are the next ones.
            let cold = try bench.load(server, script: "serve-favorites-read.lua", token: token)
            console.output(line("\(label) serve reads, first (filling the view memory)", cold, unit: "req/s"))
            console.flush()
            reads = try bench.load(server, script: "serve-favorites-read.lua", token: token)
            console.output(line("\(label) serve reads: GET favorites of a user", reads, unit: "req/s"))
            console.flush()
            for connections in [8, 16] {
                let load = try bench.load(server, script: "serve-favorites-read.lua", token: token, connections: connections)
                fewer.append((connections, load))
                console.output(line("\(label) serve reads, \(connections) connections", load, unit: "req/s"))
                console.flush()
            }
            console.output("\(label) serve \(try bench.memoryFigures(server))")
            writes = try bench.load(server, script: "serve-favorite.lua", token: token)
            console.output(line("\(label) serve writes: PUT favorite", writes, unit: "req/s"))
            console.flush()
        }
        // The run went well: its tokens file and the server's request log go (they are kept
        // when a step fails, to see why).
        for file in ["\(label)-tokens.txt", "\(label)-serve.log"] { try? FileManager.default.removeItem(atPath: "\(bench.directory)/\(file)") }
        let rawAfter = try rawWrites()
        console.output("\(label) baseline (after): \(rawAfter.name): \(String(Int(rawAfter.rate.rounded())).groupedThousands) rows/s")
        let raw = (rate: (rawBefore.rate + rawAfter.rate) / 2, name: rawAfter.name + ", mean of before and after", target: rawAfter.target)
        let perProcess = try bench.processPerRequest(store: store)
        console.output("\(label) baseline: one 'evtool favorite' process per request: \(String(format: "%.1f", perProcess)) req/s")
        console.output(BenchFigure.header)
        console.output(BenchFigure(operation: "\(label) serve writes vs raw", ours: writes.perSecond, baseline: raw.rate, baselineName: raw.name, target: raw.target).line)
        console.output(BenchFigure(operation: "\(label) serve reads vs in-process", ours: reads.perSecond, baseline: inProcess.perSecond,
                                   baselineName: "the same read through EvtoolKit in-process", target: 0.3).line)
        console.output(BenchFigure(operation: "\(label) serve writes vs a process each", ours: writes.perSecond, baseline: perProcess,
                                   baselineName: "one evtool favorite process per request", target: nil).line)
        console.output("\(label) serve reads p99 \(String(format: "%.2f", reads.p99)) ms at \(ServeBenchmark.connections) connections: \(reads.p99 < 5 && reads.failures == 0 ? "< 5 ms ok" : reads.failures > 0 ? "MISSED (\(reads.failures) requests failed)" : "≥ 5 ms MISSED (target < 5 ms)")"
                       + fewer.map { "; \(String(format: "%.2f", $0.load.p99)) ms at \($0.connections)" }.joined())
        // Little's law: a p99 under 5 ms at 64 connections needs at least 64 / 5 ms requests/s.
        console.output("\(label) serve reads: \(ServeBenchmark.connections) connections at p99 < 5 ms need ≥ \(String(ServeBenchmark.connections * 200).groupedThousands) req/s (Little's law); measured \(String(Int(reads.perSecond.rounded())).groupedThousands)")
        console.flush()
    }

    /// A load's figures on one line.
    static func line(_ what: String, _ load: ServeBenchmark.Load, unit: String) -> String {
        what.padded(to: 52) + String(Int(load.perSecond.rounded())).groupedThousands.leftPadded(to: 9, with: " ") + " \(unit)"
            + "  p50 \(String(format: "%.2f", load.p50)) ms  p99 \(String(format: "%.2f", load.p99)) ms  (\(String(load.requests).groupedThousands) requests, \(load.failures) failed)"
    }

    /// `uptime`'s load averages (1, 5, 15 minutes).
    static func loadAverage() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "unknown" }
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
