import Commands
import EventLog
import Foundation
import Projections
import Simulation
import StoreSQLite

/// Rebuild throughput of every view over a user-activity log, against a raw read of the same
/// log; peak memory at two log sizes over the same users; and one user's favorites read.
enum ProjectionBenchmark {
    /// Appends `count` simulated domain events for `users` users to `store`, 1,000 per
    /// multi-stream transaction (the log's content matters here, not how it was written).
    static func fillLog(_ store: SQLiteEventStore, count: Int, users: Int, listings: Int, seed: UInt64) throws {
        var generator = ActivityGenerator(users: users, listings: listings, seed: seed)
        var versions: [String: Int64] = [:]
        var parts: [StreamAppend] = []
        var pending = 0
        var time = Timestamp.microseconds(Date(timeIntervalSince1970: 1_796_000_000))
        for _ in 0..<count {
            let action = generator.next()
            time += 250_000
            let event: DomainEvent
            switch action.command {
            case .search(let search): event = .searched(search)
            case let .favorite(listing, summary): event = .favorited(Favorited(listingID: listing, summary: summary))
            case .unfavorite(let listing): event = .unfavorited(Unfavorited(listingID: listing))
            case let .viewDetails(listing, details): event = .detailsViewed(DetailsViewed(listingID: listing, details: details))
            }
            let (type, data) = try event.encode()
            let occurred = Timestamp.date(microseconds: time)
            let metadata = try EventMetadata(userID: action.userID, occurredAt: occurred, handledAt: occurred, correlationID: "bench",
                                             causationID: "bench", source: "bench").encoded()
            let stream = UserStream.id(for: action.userID)
            let version = versions[stream, default: 0]
            versions[stream] = version + 1
            let proposed = ProposedEvent(type: type, data: data, metadata: metadata, recordedAt: occurred)
            if let last = parts.last, last.stream == stream {
                parts[parts.count - 1].events.append(proposed)
            } else {
                parts.append(StreamAppend(stream: stream, expectedVersion: .exactly(version), events: [proposed]))
            }
            pending += 1
            if pending == 1_000 {
                try store.append(parts)
                parts.removeAll(keepingCapacity: true)
                pending = 0
            }
        }
        if !parts.isEmpty { try store.append(parts) }
    }

    static func run(events: Int, users: Int, runs: Int, directory: String, console: inout Console) throws {
        BenchCommand.preamble(&console, "projections, rebuild of all views over N = \(String(events).groupedThousands) events, \(String(users).groupedThousands) users; median of \(runs) run(s)")
        var bench = SQLiteBenchmark(directory: directory)
        let path = bench.freshPath("views")
        let small = bench.freshPath("views-small")
        do {
            let store = try SQLiteEventStore(path: path)
            try fillLog(store, count: events, users: users, listings: 20_000, seed: 3)
            let smallStore = try SQLiteEventStore(path: small)
            try fillLog(smallStore, count: events / 10, users: users, listings: 20_000, seed: 3)
        }
        var ours: [Double] = [], raw: [Double] = [], phases: [CatchUpPhases] = []
        for _ in 0..<runs {
            raw.append(bench.rawRead(path: path).seconds)
            let store = try SQLiteEventStore(path: path)
            // The projector is released inside the measured time, as a rebuild that returns frees its documents.
            ours.append(try Measurement.seconds {
                let projector = Projector(store: store)
                try projector.rebuild()
                phases.append(projector.lastPhases)
            })
        }
        let figure = BenchFigure(operation: "rebuild all 4 views", ours: Double(events) / Measurement.median(ours),
                                 baseline: Double(events) / Measurement.median(raw), baselineName: "prepared SELECT of the log", target: 0.3)
        console.output(BenchFigure.header)
        console.output(figure.line)
        // Where the median run's time went, as the projector measured it.
        let median = ours.indices.sorted { ours[$0] < ours[$1] }[ours.count / 2]
        console.output("rebuild phases (median run, \(String(format: "%.2f", ours[median])) s): \(phases[median].summary)")
        console.flush()

        // Peak memory of a rebuild at N/10 and N events over the same users, beside the size of
        // the views it built (the views of this workload grow with N: recent-search lists fill
        // up to their cap of 20 and favorites accumulate).
        func peak(_ file: String) throws -> (peak: Int, views: Int) {
            Measurement.resetPeak()
            let before = Measurement.residentMemory().current
            let store = try SQLiteEventStore(path: file)
            try Projector(store: store).rebuild()
            let grown = Measurement.residentMemory().peak - before
            var bytes = 0
            for status in try store.projectionStatuses() where status.isActive {
                var after = ""
                while true {
                    let page = try store.documents(of: status.name, generation: status.generation, after: after, limit: 5_000)
                    guard let last = page.last else { break }
                    bytes += page.reduce(0) { $0 + $1.document.count }
                    after = last.key
                }
            }
            return (grown, bytes)
        }
        let smallRun = try peak(small)
        let largeRun = try peak(path)
        console.output("peak memory growth during rebuild: \(Measurement.mebibytes(smallRun.peak)) at \(String(events / 10).groupedThousands) events (views: \(Measurement.mebibytes(smallRun.views)) of JSON), \(Measurement.mebibytes(largeRun.peak)) at \(String(events).groupedThousands) (views: \(Measurement.mebibytes(largeRun.views))); memory/views \(String(format: "%.2f", Double(smallRun.peak) / Double(max(smallRun.views, 1)))) and \(String(format: "%.2f", Double(largeRun.peak) / Double(max(largeRun.views, 1)))) (target: bounded by the views, not by N)")
        console.flush()
        bench.remove(small)
        bench.remove(path)
    }

    /// Median and 99th-percentile latency of reading one user's favorites through the
    /// projector (catch-up check included), with `users` users in the store.
    static func favoritesLatency(users: Int, directory: String, console: inout Console) throws {
        var bench = SQLiteBenchmark(directory: directory)
        let path = bench.freshPath("favorites-latency")
        defer { bench.remove(path) }
        let store = try SQLiteEventStore(path: path)
        try fillLog(store, count: users * 3, users: users, listings: 20_000, seed: 5)
        let projector = Projector(store: store, projections: [Views.favorites])
        try projector.catchUp()
        var random = SplitMix64(seed: 9)
        var samples: [Double] = []
        for _ in 0..<10_000 {
            let user = ActivityGenerator.userID(Int.random(in: 0..<users, using: &random))
            samples.append(try Measurement.seconds { _ = try projector.document(Views.favorites, key: user) })
        }
        samples.sort()
        let median = samples[samples.count / 2] * 1_000, p99 = samples[samples.count * 99 / 100] * 1_000
        console.output("favorites of one user, \(String(users).groupedThousands) users in the store (\(String(users * 3).groupedThousands) events): median \(String(format: "%.3f", median)) ms, p99 \(String(format: "%.3f", p99)) ms (target: median < 1 ms)")
        console.flush()
    }
}
