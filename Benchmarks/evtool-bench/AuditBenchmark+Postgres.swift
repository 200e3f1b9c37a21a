import EventLog
import Foundation
import StorePostgres

extension AuditBenchmark {
    /// `evtool verify` on a PostgreSQL store against a raw read of the same rows (one `SELECT`
    /// of every column, hash included, through libpq), alternating run by run, with the
    /// processor time of both beside the wall-clock rates.
    static func runPostgres(url: String, events: Int, batch: Int, runs: Int, console: inout Console) throws {
        BenchCommand.preamble(&console, "audit trail on PostgreSQL, N = \(String(events).groupedThousands) events in batches of \(batch); median of \(runs) run(s)")
        console.output("server: \(url.split(separator: "@").last.map(String.init) ?? "(from PG* variables)")")
        var bench = PostgresBenchmark(url: url)
        let schema = try bench.freshSchema("verify")
        defer { bench.drop(schema) }
        let rows = Workload.rows(count: events, batchSize: batch)
        _ = try bench.ourAppend(rows, batchSize: batch, schema: schema)
        console.output(BenchFigure.header)
        var raw: [Double] = [], verify: [Double] = [], rawCPU: [Double] = [], verifyCPU: [Double] = []
        for run in 0..<runs {
            var steps: [() throws -> Void] = []
            steps.append {
                let cpu = processorSeconds()
                let read = bench.rawRead(schema: schema, withHash: true)
                rawCPU.append(processorSeconds() - cpu)
                raw.append(read.seconds)
                guard read.count == events else { throw CLIError(message: "benchmark raw read \(read.count) events, expected \(events)", code: .failure) }
            }
            steps.append {
                let store = try PostgresEventStore(url: url, schema: schema)
                var verifier = try LogVerifier(store: store)
                var report: VerificationReport?
                let cpu = processorSeconds()
                verify.append(try Measurement.seconds { report = try verifier.verifyLog() })
                verifyCPU.append(processorSeconds() - cpu)
                guard report?.events == Int64(events) else {
                    throw CLIError(message: "benchmark verified \(report?.events ?? 0) events, expected \(events)", code: .failure)
                }
            }
            for step in run % 2 == 0 ? steps : steps.reversed() { try step() }
        }
        console.output(BenchFigure(operation: "verify whole log", ours: Double(events) / Measurement.median(verify),
                                   baseline: Double(events) / Measurement.median(raw),
                                   baselineName: "one SELECT of every column (hash included), no hashing", target: 0.5).line)
        console.output("verify used \(String(format: "%.2f", Measurement.median(verifyCPU) / Measurement.median(rawCPU)))× the client processor time of the raw read (all threads: \(String(format: "%.2f", Measurement.median(verifyCPU))) s against \(String(format: "%.2f", Measurement.median(rawCPU))) s)")
        console.flush()
        try keptTreePostgres(url: url, rows: rows, batch: batch, runs: runs, bench: &bench, console: &console)
        console.flush()
    }
}
