import Foundation
import TestSupport
import Testing

/// The `evtool-bench` binary, run as a user runs it: its help, its usage errors, and short
/// real runs of the suites that finish in seconds, checked line by line for the report's format.
@Suite("evtool-bench: command line and report format")
struct BenchCommandTests {
    static var bench: String { Processes.built("evtool-bench") }

    /// Every stderr line of a debug build's run is the warning that its figures mean nothing.
    static func onlyDebugWarnings(_ errors: String) -> Bool {
        errors.split(separator: "\n").allSatisfy {
            $0 == "WARNING: this is a DEBUG build; figures are meaningless. Run: swift run -c release evtool-bench"
        }
    }

    /// A figure line: operation, our rate, the baseline's, the ratio, the verdict, the baseline.
    static func isFigure(_ line: Substring, operation: String, baseline: String) -> Bool {
        guard line.hasPrefix(operation + " "), line.hasSuffix("   (baseline: \(baseline))") else { return false }
        let middle = line.dropFirst(operation.count).dropLast("   (baseline: \(baseline))".count)
        return middle.wholeMatch(of: /\s+[0-9,]+\s+[0-9,]+\s+[0-9]+\.[0-9]{2}  (≥ [0-9.]+ ok|< [0-9.]+ MISSED)?/) != nil
    }

    @Test("--help and -h print the help with every suite and option, exit 0")
    func help() throws {
        let long = try Processes.run(Self.bench, ["--help"])
        #expect(long.status == 0)
        #expect(long.errors.isEmpty)
        #expect(long.output.hasPrefix("OVERVIEW: Measure append and read speed"))
        #expect(long.output.contains("\nUSAGE: evtool-bench [SUITE…] "))
        #expect(long.output.contains("sqlite, commands, projections, audit, follower, postgres, serve, scale"))
        for option in ["--events N", "--single N", "--batch N", "--runs R", "--quick", "--dir DIR", "--users N", "--samples N", "--long-stream N", "--stream-length N", "--compare-cache", "--postgres URL", "--duration S"] {
            #expect(long.output.contains("\n  \(option) "), "help lacks \(option)")
        }
        #expect(long.output.contains("\nEXIT CODES:\n"))
        #expect(try Processes.run(Self.bench, ["-h"]).output == long.output)
    }

    @Test("usage errors: one Error line, the usage line, a pointer to help, exit 64, nothing on stdout")
    func usageErrors() throws {
        let usage = "Usage: evtool-bench [SUITE…] [--events N] [--single N] [--batch N] [--runs R] [--quick] [--dir DIR] [--users N] [--samples N] [--long-stream N] [--stream-length N] [--compare-cache] [--postgres URL] [--duration S]\nSee 'evtool-bench --help'.\n"
        let cases: [([String], String)] = [
            (["sqlit"], "Error: no benchmark suite 'sqlit'; suites: sqlite, commands, projections, audit, follower, postgres, serve, scale\n"),
            (["sqlite", "--events", "1000,2000"], "Error: option '--events' takes several sizes only for the scale suite\n"),
            (["scale", "--events", "1000,99"], "Error: option '--events' must be a whole number from 1000 to 100000000, not '1000,99'\n"),
            (["--event", "5"], "Error: unknown option '--event'\n"),
            (["-x"], "Error: unknown option '-x'\n"),
            (["sqlite", "--events", "999"], "Error: option '--events' must be a whole number from 1000 to 100000000, not '999'\n"),
            (["sqlite", "--runs"], "Error: option '--runs' needs a value (R)\n"),
            (["sqlite", "--runs", "1", "--runs", "2"], "Error: option '--runs' is given more than once\n"),
            (["sqlite", "--quick=yes"], "Error: option '--quick' takes no value\n"),
            (["projections", "--users", "0"], "Error: option '--users' must be a whole number from 1 to 10000000, not '0'\n"),
        ]
        for (arguments, error) in cases {
            let result = try Processes.run(Self.bench, arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors == error + usage, "\(arguments)")
            #expect(result.output.isEmpty, "\(arguments)")
        }
    }

    @Test("evtool no longer has a bench subcommand")
    func notInEvtool() throws {
        let result = try Processes.run(Processes.evtool, ["bench"])
        #expect(result.status == 64)
        #expect(result.errors == "Error: unknown subcommand 'bench'\nSee 'evtool --help'.\n")
        #expect(!(try Processes.run(Processes.evtool, ["--help"])).output.contains("bench"))
    }

    @Test("a short sqlite run prints the preamble, the rows, three figures, the memory line and the peers' figures (or that there are none)")
    func sqliteRun() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let result = try Processes.run(Self.bench, ["sqlite", "--events", "1000", "--single", "100", "--runs", "1", "--dir", directory.path])
        #expect(result.status == 0, "\(result)")
        #expect(Self.onlyDebugWarnings(result.errors), "\(result)")
        let lines = result.output.split(separator: "\n")
        try #require(lines.count >= 8, "\(result)")
        #expect(lines[0] == "evtool-bench: SQLite store, N = 1,000 batched (1000/append) and read, 100 one per call; ~1,000 user streams; median of 1 run(s)")
        #expect(lines[1].hasPrefix("machine: ") && lines[1].contains("; SQLite 3."))
        #expect(lines[2].wholeMatch(of: /rows: 1,000, average data\+metadata [0-9]+ bytes/) != nil, "\(lines[2])")
        #expect(Self.isFigure(lines[3], operation: "append, batches of 1000", baseline: "one transaction, prepared INSERT"), "\(lines[3])")
        #expect(Self.isFigure(lines[4], operation: "append, one event per call", baseline: "prepared INSERT, one transaction per row"), "\(lines[4])")
        #expect(Self.isFigure(lines[5], operation: "read whole log (batches of 1,000)", baseline: "prepared SELECT, every column"), "\(lines[5])")
        #expect(lines[6].hasPrefix("peak memory growth while reading: "))
        // Then the peers' figures from ../shared/bench when it ran on this machine lately: a
        // heading and one indented line each, or one line saying there are none.
        #expect(lines[7].hasPrefix("peers"), "\(lines[7])")
        #expect(lines.dropFirst(8).allSatisfy { $0.hasPrefix("  ") }, "\(result)")
        // The run removes its database files, even from a folder it was given.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
    }

    @Test("a short audit run verifies what it appended and prints its figures")
    func auditRun() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let result = try Processes.run(Self.bench, ["audit", "--events", "1000", "--runs", "1", "--dir", directory.path])
        #expect(result.status == 0, "\(result)")
        #expect(Self.onlyDebugWarnings(result.errors), "\(result)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "evtool-bench: audit trail on SQLite, N = 1,000 events in batches of 1000; median of 1 run(s)")
        #expect(lines.contains { $0.hasPrefix("append, batches of 1000, hashing ") }, "\(result)")
        #expect(lines.contains { $0.wholeMatch(of: /hashing costs -?[0-9]+\.[0-9]% of batched append throughput/) != nil }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("Merkle tree follower after each batch of 1000: ") && $0.hasSuffix("; appends themselves: 0 tile writes (the first batch, measured)") }, "\(result)")
        // The one-event path's writes, counted: none by the appends, one small transaction of the follower's per append.
        #expect(lines.contains { $0.hasPrefix("one-event appends (") && $0.hasSuffix("measured over the first 100: the appends wrote 0 tile rows, the follower 1.00 writes per append (one transaction each, 1.06 tile rows) (target ≤ 1 extra small write per append: ok)") }, "\(result)")
        // The tree's whole cost, beside appends to a file with no tree, for both followers.
        let wholeCost = lines.filter { $0.wholeMatch(of: #/  the tree's whole cost( \(second connection\))?: appends and follower [0-9]+\.[0-9]{2} µs per event against [0-9]+\.[0-9]{2} µs for the same appends to a file with no tree: [+-][0-9]+\.[0-9]% \(checkpoints included; target ≤ 10%: (ok|MISSED)\)/#) != nil }
        #expect(wholeCost.count == 2, "\(result)")
        #expect(lines.contains { $0.hasPrefix("Merkle tree extended over the whole log ") }, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the audit run left files behind")
        #expect(lines.contains { $0.hasPrefix("inclusion proof at 1,000 events: ") && $0.contains(" from the kept tree, ") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("consistency proof at 1,000 events: ") }, "\(result)")
    }

    @Test("a tiny scale run on both stores prints every figure at each size and the ratios against the targets, and cleans up")
    func scaleRun() throws {
        let url = try TestStores.postgresURL()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try Processes.run(Self.bench, ["scale", "--events", "2000,4000", "--users", "50", "--samples", "20", "--long-stream", "2500",
                                                    "--compare-cache", "--dir", directory.path, "--postgres", url])
        #expect(result.status == 0, "\(result)")
        #expect(Self.onlyDebugWarnings(result.errors), "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("evtool-bench: scale, ") }.count == 2, "one report per store: \(result)")
        let ms = #"p50 [0-9]+\.[0-9]{3} ms, p99 [0-9]+\.[0-9]{3} ms"#
        for size in ["2,000", "4,000"] {
            let patterns = [
                #"build: [0-9,]+ events in [0-9.]+ s \([0-9,]+/s, 1,000 events over up to 1,000 streams per transaction\)"#,
                #"batched append: [0-9,]+ events at [0-9,]+/s"#,
                "durable command through the runner \\(a search\\): " + ms,
                "of which: the runner's load of a user's state \\(no cache\\): " + ms,
                "of which: one durable one-event append \\(the store alone\\): " + ms,
                #"rebuild \(evtool rebuild, all 4 views\): [0-9.]+ s, peak memory [0-9.]+ MiB"#,
                "favorites of one user: " + ms, "recent searches of one user: " + ms, "history \\(last 50\\) of one user: " + ms,
                "favorites of one user as of the middle of the log: " + ms,
                #"verify \(evtool verify\): [0-9.]+ s, peak memory [0-9.]+ MiB"#,
                #"size on disk: [0-9.]+ MiB, [0-9]+ bytes per event"#,
            ]
            for pattern in patterns {
                let regex = try Regex("\\[\(size) events\\] " + pattern)
                #expect(lines.filter { $0.wholeMatch(of: regex) != nil }.count == 2, "\(size): \(pattern)\n\(result.output)")
            }
        }
        for size in ["2,000", "4,000"] {   // --compare-cache: SQLite alone
            for pattern in [#"rebuild with SQLite's default 2 MiB page cache: [0-9.]+ s, peak memory [0-9.]+ MiB"#,
                            #"verify with SQLite's default 2 MiB page cache: [0-9.]+ s, peak memory [0-9.]+ MiB"#,
                            #"reads with SQLite's default 2 MiB page cache: p50 favorites [0-9.]+ ms, history \(last 50\) [0-9.]+ ms, as-of [0-9.]+ ms"#,
                            #"reads with the rule's 8.0 MiB page cache: p50 favorites [0-9.]+ ms, history \(last 50\) [0-9.]+ ms, as-of [0-9.]+ ms"#,
                            #"reads with SQLite's default page cache and a 2 GiB memory map: p50 favorites [0-9.]+ ms, history \(last 50\) [0-9.]+ ms, as-of [0-9.]+ ms"#] {
                let regex = try Regex("\\[\(size) events\\] " + pattern)
                #expect(lines.filter { $0.wholeMatch(of: regex) != nil }.count == 1, "\(size): \(pattern)\n\(result.output)")
            }
        }
        #expect(lines.filter { $0 == "ratios 4,000 / 2,000 events (for the append rate: the smaller size's over the larger's)" }.count == 2)
        #expect(lines.filter { $0.wholeMatch(of: /\[[0-9,]+ events\] events indexes: .*events_pkey [0-9.]+ MiB.*/) != nil }.count == 2, "PostgreSQL's index sizes at each size")
        // The events table is partitioned: its indexes' sizes are their partitions' (they read 0.0 MiB before).
        #expect(lines.contains { $0.wholeMatch(of: /\[4,000 events\] events indexes: .*events_stream_version_key (0\.[1-9]|[1-9][0-9]*\.[0-9]) MiB.*/) != nil },
                "the (stream, version) index of 4,000 events has a size\n\(result.output)")
        for figure in ["command-p50", "command-p99", "load-p50", "append-one-p50", "favorites-p99", "recent-p99", "history-p99", "as-of-p99", "append", "rebuild", "verify"] {
            let regex = try Regex("\(figure) +[0-9.,]+( ms| s)? +[0-9.,]+( ms| s)? +[0-9]+\\.[0-9]{2}  ≤ [0-9.]+ (ok|MISSED)")
            #expect(lines.filter { $0.wholeMatch(of: regex) != nil }.count == 2, "\(figure)\n\(result.output)")
        }
        for what in ["evtool favorite, new process (median of 7)", "evtool favorites --as-of, new process (median of 7)",
                     "a command in a long-running process (median of 200)", "favorites as of a position in a long-running process (median of 200)"] {
            let regex = try Regex("\\[one user with 2,500 events\\] \(NSRegularExpression.escapedPattern(for: what)): [0-9.]+ s, a new user [0-9.]+ s, ratio [0-9.]+  ≤ 2 (ok|MISSED)")
            #expect(lines.filter { $0.wholeMatch(of: regex) != nil }.count == 2, "\(what)\n\(result.output)")
        }
        #expect(lines.filter { $0.wholeMatch(of: /\[one user with 2,500 events\] the time-travel cache then: [1-9][0-9]* states, [0-9]+\.[0-9] MiB \(bound 64 MiB\)/) != nil }.count == 2,
                "the time-travel cache's states and bytes\n\(result.output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the SQLite stores are removed")
        let schemas = try Processes.run(Processes.psql, [url, "-X", "-q", "-A", "-t", "-c",
                                                         "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'bench_scale_%'"])
        #expect(schemas.output == "0\n", "the PostgreSQL schemas are dropped: \(schemas)")
    }

    @Test("--stream-length holds each user's stream to the same length at every size")
    func scaleStreamLength() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let result = try Processes.run(Self.bench, ["scale", "--events", "2000,4000", "--stream-length", "40", "--samples", "10", "--long-stream", "0",
                                                    "--dir", directory.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("evtool-bench: scale, SQLite, sizes 2,000, 4,000 events, 40 events per user (users: the size over that), 10 samples per latency"), "\(result)")
        #expect(lines.contains { $0.hasPrefix("history-p50 ") }, "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the SQLite stores are removed")
    }

    @Test("an interrupted scale run removes its stores and exits 128 + the signal", arguments: [SIGINT, SIGTERM])
    func scaleInterrupted(_ signal: Int32) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let running = try Processes.start(Self.bench, ["scale", "--events", "5000000", "--long-stream", "0", "--dir", directory.path])
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline, running.isRunning, (try? FileManager.default.contentsOfDirectory(atPath: directory.path))?.isEmpty ?? true {
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(running.isRunning, "still building 5,000,000 events")
        running.send(signal)
        let result = try running.finish()
        #expect(result.status == 128 + signal && !result.wasSignaled, "\(result)")
        #expect(result.errors.contains("evtool-bench: interrupted; removing the scale suite's 1 store(s)"), "\(result)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty, "the SQLite store is removed")
    }

    @Test("a short postgres run against the test server prints its figures")
    func postgresRun() throws {
        let url = try TestStores.postgresURL()
        let result = try Processes.run(Self.bench, ["postgres", "--postgres", url, "--events", "1000", "--single", "100", "--runs", "1"])
        #expect(result.status == 0, "\(result)")
        #expect(Self.onlyDebugWarnings(result.errors), "\(result)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "evtool-bench: PostgreSQL store, N = 1,000 batched (1000/append) and read, 100 one per call; ~1,000 user streams; median of 1 run(s)")
        #expect(lines.contains { Self.isFigure($0, operation: "append, batches of 1000", baseline: "COPY of the same rows") }, "\(result)")
        #expect(lines.contains { Self.isFigure($0, operation: "read whole log (batches of 1,000)", baseline: "one SELECT of every column") }, "\(result)")
        #expect(lines.contains { Self.isFigure($0, operation: "append, one event per call, 8 writers", baseline: "the same with 1 writer: the ratio is the speed-up") }, "\(result)")
        #expect(lines.contains { Self.isFigure($0, operation: "append, one event per call, no flush wait", baseline: "the same raw INSERTs, synchronous_commit=off on both: processor time") }, "\(result)")
    }

    @Test("a short serve run starts evtool serve on SQLite and PostgreSQL, loads it with wrk, and prints every figure, baseline and ratio")
    func serveRun() throws {
        let url = try TestStores.postgresURL()
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let result = try Processes.run(Self.bench, ["serve", "--users", "300", "--duration", "1", "--quick", "--postgres", url, "--dir", directory.path])
        #expect(result.status == 0, "\(result)")
        #expect(Self.onlyDebugWarnings(result.errors), "\(result)")
        let lines = result.output.split(separator: "\n")
        #expect(lines.first == "evtool-bench: evtool serve under wrk -t2 -c64 -d1s (server --threads 8), 300 users of 1-3 favorites each; SQLite (durable) and PostgreSQL", "\(result)")
        #expect(lines.contains { $0.hasPrefix("load before: ") } && lines.contains { $0.hasPrefix("load after: ") }, "\(result)")
        let load = /\s+[0-9,]+ (req|reads)\/s  p50 [0-9]+\.[0-9]{2} ms  p99 [0-9]+\.[0-9]{2} ms  \([0-9,]+ requests, 0 failed\)/
        for label in ["sqlite", "postgres"] {
            #expect(lines.contains { $0.hasPrefix("\(label): preloaded 300 users (600 events), views caught up, in ") }, "\(label): \(result)")
            for what in ["in-process read (EvtoolKit, 8 threads)", "serve GET /healthz (no store, no token)", "serve reads, first (filling the view memory)", "serve reads: GET favorites of a user",
                         "serve reads, 8 connections", "serve reads, 16 connections", "serve writes: PUT favorite"] {
                let prefix = "\(label) \(what)"
                #expect(lines.contains { $0.hasPrefix(prefix) && $0.dropFirst(prefix.count).wholeMatch(of: load) != nil }, "\(prefix): \(result)")
            }
            let raw = try Regex("\(label) baseline \\((before|after)\\): raw .+: [0-9,]+ rows/s")
            let perProcess = try Regex("\(label) baseline: one 'evtool favorite' process per request: [0-9]+\\.[0-9] req/s")
            let p99 = try Regex("\(label) serve reads p99 [0-9]+\\.[0-9]{2} ms at 64 connections: (< 5 ms ok|≥ 5 ms MISSED \\(target < 5 ms\\)|MISSED \\([0-9]+ requests failed\\)); [0-9]+\\.[0-9]{2} ms at 8; [0-9]+\\.[0-9]{2} ms at 16")
            let little = try Regex("\(label) serve reads: 64 connections at p99 < 5 ms need ≥ 12,800 req/s \\(Little's law\\); measured [0-9,]+")
            #expect(lines.contains { $0.wholeMatch(of: little) != nil }, "\(result)")
            let memory = try Regex("\(label) serve view memory: [0-9,]+ reads from memory, [0-9,]+ from the store \\([0-9]+\\.[0-9]% from memory\\), [0-9]+\\.[0-9] MiB held")
            #expect(lines.contains { $0.wholeMatch(of: memory) != nil }, "\(result)")
            #expect(lines.filter { $0.wholeMatch(of: raw) != nil }.count == 2, "the raw baseline before and after: \(result)")
            #expect(lines.contains { $0.wholeMatch(of: raw) != nil }, "\(result)")
            #expect(lines.contains { $0.wholeMatch(of: perProcess) != nil }, "\(result)")
            let rawName = (label == "sqlite" ? "raw SQLite: prepared INSERT, one transaction per row, synchronous=FULL"
                : "raw PostgreSQL: prepared single-row INSERT transactions over 8 connections") + ", mean of before and after"
            #expect(lines.contains { Self.isFigure($0, operation: "\(label) serve writes vs raw", baseline: rawName) }, "\(result)")
            #expect(lines.contains { Self.isFigure($0, operation: "\(label) serve reads vs in-process", baseline: "the same read through EvtoolKit in-process") }, "\(result)")
            #expect(lines.contains { Self.isFigure($0, operation: "\(label) serve writes vs a process each", baseline: "one evtool favorite process per request") }, "\(result)")
            #expect(lines.contains { $0.wholeMatch(of: p99) != nil }, "\(result)")
        }
    }
}
