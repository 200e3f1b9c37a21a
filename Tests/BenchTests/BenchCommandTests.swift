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
        #expect(long.output.contains("sqlite, commands, projections, audit, postgres"))
        for option in ["--events N", "--single N", "--batch N", "--runs R", "--quick", "--dir DIR", "--users N", "--postgres URL"] {
            #expect(long.output.contains("\n  \(option) "), "help lacks \(option)")
        }
        #expect(long.output.contains("\nEXIT CODES:\n"))
        #expect(try Processes.run(Self.bench, ["-h"]).output == long.output)
    }

    @Test("usage errors: one Error line, the usage line, a pointer to help, exit 64, nothing on stdout")
    func usageErrors() throws {
        let usage = "Usage: evtool-bench [SUITE…] [--events N] [--single N] [--batch N] [--runs R] [--quick] [--dir DIR] [--users N] [--postgres URL]\nSee 'evtool-bench --help'.\n"
        let cases: [([String], String)] = [
            (["sqlit"], "Error: no benchmark suite 'sqlit'; suites: sqlite, commands, projections, audit, postgres\n"),
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
        #expect(lines.contains { $0.hasPrefix("Merkle tree follower after each batch of 1000: ") && $0.hasSuffix("; appends themselves: 0 extra writes") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("Merkle tree extended over the whole log ") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("inclusion proof at 1,000 events: ") && $0.contains(" from the kept tree, ") }, "\(result)")
        #expect(lines.contains { $0.hasPrefix("consistency proof at 1,000 events: ") }, "\(result)")
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
    }
}
