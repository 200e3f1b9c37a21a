import CSQLite
import EventLog
import Foundation

/// `evtool-bench`: measures the stores against same-run baselines of the raw libraries.
enum BenchCommand {
    static let usage = "[SUITE…] [--events N] [--single N] [--batch N] [--runs R] [--quick] [--dir DIR] [--users N] [--samples N] [--long-stream N] [--stream-length N] [--compare-cache] [--postgres URL] [--duration S]"

    static let options: [BenchArguments.Option] = [
        .init(name: "events", value: "N", help: "Events for batched append and full read (default 1,000,000); for scale, the sizes, e.g. 1000000,10000000 (the default)"),
        .init(name: "single", value: "N", help: "Events for one-event-per-call append (default 100,000)"),
        .init(name: "batch", value: "N", help: "Events per batched append (default 1,000)"),
        .init(name: "runs", value: "R", help: "Timed runs of each measurement; the median is reported (default 3)"),
        .init(name: "quick", value: nil, help: "A short run: 100,000 / 10,000 events, one run"),
        .init(name: "dir", value: "DIR", help: "Where to put the benchmark's database files (default: a temporary folder)"),
        .init(name: "users", value: "N", help: "Users for the projection benchmarks (default 10,000), in the serve suite's stores and the scale suite (default 100,000)"),
        .init(name: "samples", value: "N", help: "Commands and users sampled per latency in the scale suite (default 2,000)"),
        .init(name: "long-stream", value: "N", help: "Events of the one long stream the scale suite measures (default 100,000; 0: none)"),
        .init(name: "stream-length", value: "N", help: "Events per user at every size in the scale suite (users: the size over N), so that only the log grows (default: --users users at every size)"),
        .init(name: "compare-cache", value: nil, help: "In the scale suite, also measure SQLite's reads, rebuild and verify with SQLite's default 2 MiB page cache (and reads with a memory map), in the same run"),
        .init(name: "postgres", value: "URL", help: "The database for the postgres, scale and serve suites (postgres without it: the PG* variables; audit with it also verifies a PostgreSQL store; serve: EVTOOL_BENCH_POSTGRES_URL or a server of its own)"),
        .init(name: "duration", value: "S", help: "Seconds of each wrk run in the serve suite (default 10; 3 with --quick)"),
        .init(name: "help", value: nil, help: "Show this help"),
    ]

    static var help: String {
        var text = """
            OVERVIEW: Measure append and read speed against same-run raw-library baselines

            Build in release mode: swift run -c release evtool-bench. Each figure is the median of R
            runs, beside a baseline measured in the same run on the same machine: the best plain use
            of the same library (a prepared statement, the same rows, the same schema and pragmas).

            USAGE: evtool-bench \(usage)

            ARGUMENTS:
              \("SUITE".padded(to: 26))Which benchmarks (default all): \(allSuites.joined(separator: ", ")) (postgres is in the default only with --postgres; serve, which runs evtool serve under wrk, scale, minutes to build its stores, and follower, audit's SQLite Merkle tree follower alone, only when named)

            OPTIONS:

            """
        for option in options {
            let label = "--\(option.name)" + (option.value.map { " \($0)" } ?? "")
            text += "  " + label.padded(to: 26) + option.help + "\n"
        }
        text += """

            EXAMPLES:
              swift run -c release evtool-bench
              swift run -c release evtool-bench --quick
              swift run -c release evtool-bench projections
              swift build -c release && .build/release/evtool-bench serve
              swift run -c release evtool-bench scale --events 1000000,10000000 --postgres postgres://localhost/bench

            EXIT CODES:
              0   every benchmark ran
              1   a benchmark failed (store error, wrong number of events read back)
              64  usage error (unknown suite or option, missing or malformed value)

            """
        return text
    }

    /// Runs the benchmarks `arguments` (without the program name) ask for; returns the exit code.
    static func main(_ arguments: [String], console: inout Console) -> ExitCode {
        defer { console.flush() }
        do {
            let parsed = try BenchArguments(arguments, options: options)
            if parsed.flag("help") {
                console.output(help)
                return .ok
            }
            try run(parsed, console: &console)
            return .ok
        } catch let error as CLIError {
            console.message("Error: " + error.message)
            if error.code == .usage {
                console.message("Usage: evtool-bench \(usage)")
                console.message("See 'evtool-bench --help'.")
            }
            return error.code
        } catch {
            console.message("Error: \(error)")
            return .failure
        }
    }

    static func run(_ arguments: BenchArguments, console: inout Console) throws {
        let postgresURL = arguments.value("postgres")
        let suites = arguments.positional.isEmpty ? allSuites.filter { ($0 != "postgres" || postgresURL != nil) && $0 != "serve" && $0 != "scale" && $0 != "follower" } : arguments.positional
        for suite in suites where !allSuites.contains(suite) {
            throw CLIError.usage("no benchmark suite '\(suite)'; suites: \(allSuites.joined(separator: ", "))")
        }
        let quick = arguments.flag("quick")
        let sizes = try arguments.integers("events", default: quick ? [100_000, 1_000_000] : [1_000_000, 10_000_000], in: 1_000...100_000_000)
        if arguments.value("events") != nil, sizes.count > 1, suites.contains(where: { $0 != "scale" }) {
            throw CLIError.usage("option '--events' takes several sizes only for the scale suite")
        }
        let events = arguments.value("events") == nil ? (quick ? 100_000 : 1_000_000) : sizes[0]
        let samples = try arguments.integer("samples", default: 2_000, in: 1...1_000_000)
        let single = try arguments.integer("single", default: quick ? 10_000 : 100_000, in: 100...10_000_000)
        let batch = try arguments.integer("batch", default: 1_000, in: 1...100_000)
        let runs = try arguments.integer("runs", default: quick ? 1 : 3, in: 1...50)
        let users = try arguments.integer("users", default: 10_000, in: 1...10_000_000)
        let directory = arguments.value("dir") ?? (NSTemporaryDirectory() + "evtool-bench-\(getpid())")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { if arguments.value("dir") == nil { try? FileManager.default.removeItem(atPath: directory) } }
        if suites.contains("sqlite") {
            try runSQLite(events: events, single: single, batch: batch, runs: runs, directory: directory, console: &console)
        }
        if suites.contains("commands") {
            try CommandsBenchmark.run(runs: runs, quick: quick, directory: directory, console: &console)
        }
        if suites.contains("projections") {
            try ProjectionBenchmark.run(events: events, users: users, runs: runs, directory: directory, console: &console)
            try ProjectionBenchmark.favoritesLatency(users: quick ? 10_000 : 100_000, directory: directory, console: &console)
        }
        if suites.contains("audit") {
            try AuditBenchmark.run(events: events, batch: batch, runs: runs, directory: directory, console: &console)
            if let postgresURL {
                try AuditBenchmark.runPostgres(url: postgresURL, events: events, batch: batch, runs: runs, console: &console)
            }
        }
        if suites.contains("follower") {
            try AuditBenchmark.runFollower(events: events, batch: batch, runs: runs, directory: directory, console: &console)
        }
        if suites.contains("scale") {
            let evtool = (Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])).deletingLastPathComponent().appendingPathComponent("evtool").path
            var streamLength: Int?
            if arguments.value("stream-length") != nil { streamLength = try arguments.integer("stream-length", default: 1, in: 1...1_000_000) }
            if arguments.value("dir") == nil {
                ScaleBenchmark.Cleanup.register(directory) { try? FileManager.default.removeItem(atPath: directory) }
            }
            try ScaleBenchmark.run(ScaleBenchmark.Settings(
                sizes: sizes, users: arguments.value("users") == nil ? 100_000 : users, samples: samples,
                directory: directory, postgresURL: postgresURL, evtool: evtool,
                longStream: try arguments.integer("long-stream", default: 100_000, in: 0...10_000_000),
                streamLength: streamLength,
                compareCache: arguments.flag("compare-cache")), console: &console)
        }
        if suites.contains("postgres") {
            try runPostgres(url: postgresURL ?? "", events: events, single: single, batch: batch, runs: runs, console: &console)
        }
        if suites.contains("serve") {
            try runServe(users: arguments.value("users") == nil ? 100_000 : users, seconds: try arguments.integer("duration", default: quick ? 3 : 10, in: 1...3_600),
                         quick: quick, postgresURL: postgresURL, directory: directory, console: &console)
        }
    }

    static let allSuites = ["sqlite", "commands", "projections", "audit", "follower", "postgres", "serve", "scale"]

    static func preamble(_ console: inout Console, _ description: String) {
        #if DEBUG
        console.message("WARNING: this is a DEBUG build; figures are meaningless. Run: swift run -c release evtool-bench")
        #endif
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let memory = Double(ProcessInfo.processInfo.physicalMemory) / 1_073_741_824
        console.output("evtool-bench: \(description)")
        console.output("machine: \(cores) cores, \(String(format: "%.0f", memory)) GiB, \(ProcessInfo.processInfo.operatingSystemVersionString); SQLite \(String(cString: sqlite3_libversion()))")
    }

    static func runSQLite(events: Int, single: Int, batch: Int, runs: Int, directory: String, console: inout Console) throws {
        preamble(&console, "SQLite store, N = \(String(events).groupedThousands) batched (\(batch)/append) and read, \(String(single).groupedThousands) one per call; ~1,000 user streams; median of \(runs) run(s)")
        var bench = SQLiteBenchmark(directory: directory)
        var figures: [BenchFigure] = []

        // Batched append, and the raw single-transaction insert of the same rows.
        var batchedRows = Workload.rows(count: events, batchSize: batch)
        let payloadBytes = batchedRows.reduce(0) { $0 + $1.event.data.count + $1.event.metadata.count }
        console.output("rows: \(String(events).groupedThousands), average data+metadata \(payloadBytes / events) bytes")
        var ours: [Double] = [], raw: [Double] = []
        var readPath = ""
        for run in 0..<runs {
            let rawPath = bench.freshPath("raw-batched")
            raw.append(bench.rawInsert(batchedRows, path: rawPath, oneTransaction: true))
            if run < runs - 1 { bench.remove(rawPath) } else { readPath = rawPath }
            let ourPath = bench.freshPath("evtool-batched")
            ours.append(try bench.ourAppend(batchedRows, batchSize: batch, path: ourPath))
            if run < runs - 1 { bench.remove(ourPath) } else { bench.remove(readPath); readPath = ourPath }
        }
        figures.append(BenchFigure(operation: "append, batches of \(batch)", ours: Double(events) / Measurement.median(ours),
                                   baseline: Double(events) / Measurement.median(raw), baselineName: "one transaction, prepared INSERT", target: 0.7))
        console.output(figures.last!.line); console.flush()
        batchedRows = []

        // One event per append call, and raw one-row-per-transaction inserts.
        let singleRows = Workload.rows(count: single, batchSize: 1, seed: 11)
        ours = []; raw = []
        for _ in 0..<runs {
            let rawPath = bench.freshPath("raw-single")
            raw.append(bench.rawInsert(singleRows, path: rawPath, oneTransaction: false))
            bench.remove(rawPath)
            let ourPath = bench.freshPath("evtool-single")
            ours.append(try bench.ourAppend(singleRows, batchSize: 1, path: ourPath))
            bench.remove(ourPath)
        }
        figures.append(BenchFigure(operation: "append, one event per call", ours: Double(single) / Measurement.median(ours),
                                   baseline: Double(single) / Measurement.median(raw), baselineName: "prepared INSERT, one transaction per row", target: 0.5))
        console.output(figures.last!.line); console.flush()

        // Full read of the log the last batched run wrote.
        ours = []; raw = []
        for _ in 0..<runs {
            let rawRead = bench.rawRead(path: readPath)
            let ourRead = try bench.ourRead(path: readPath)
            guard rawRead.count == events, ourRead.count == events else {
                throw CLIError(message: "benchmark read \(ourRead.count) events (raw \(rawRead.count)), expected \(events)", code: .failure)
            }
            raw.append(rawRead.seconds)
            ours.append(ourRead.seconds)
        }
        figures.append(BenchFigure(operation: "read whole log (batches of 1,000)", ours: Double(events) / Measurement.median(ours),
                                   baseline: Double(events) / Measurement.median(raw), baselineName: "prepared SELECT, every column", target: 0.5))
        console.output(figures.last!.line); console.flush()

        // Peak memory while reading a tenth of the log, then all of it.
        Measurement.resetPeak()
        let before = Measurement.residentMemory().current
        _ = try bench.ourRead(path: readPath, limit: Int64(events / 10))
        let tenth = Measurement.residentMemory().peak - before
        Measurement.resetPeak()
        _ = try bench.ourRead(path: readPath)
        let whole = Measurement.residentMemory().peak - before
        console.output("peak memory growth while reading: \(Measurement.mebibytes(max(tenth, 0))) for \(String(events / 10).groupedThousands) events, \(Measurement.mebibytes(max(whole, 0))) for \(String(events).groupedThousands) (resident before: \(Measurement.mebibytes(before)))")
        bench.remove(readPath)

        // The peers' figures for the same operations, when ../shared/bench ran just before.
        for line in PeerFigures.lines(prefixes: ["es.sqlite.", "sqlite.py."],
                                      ours: ["es.sqlite.batch": figures[0].ours, "es.sqlite.per_call": figures[1].ours, "es.sqlite.read": figures[2].ours,
                                             "sqlite.py.bulk_1tx": figures[0].ours, "sqlite.py.per_tx_full": figures[1].ours, "sqlite.py.scan": figures[2].ours]) {
            console.output(line)
        }
    }
}
