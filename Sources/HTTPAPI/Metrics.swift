import EventLog
import Foundation
import Synchronization

/// The counters `/metrics` shows in the Prometheus text exposition format: requests by route
/// and status, latency histograms by route, appends, idempotent replays, conflicts, store errors.
package final class Metrics: Sendable {
    /// Counted events that are not requests.
    package enum Counter: String, Sendable, CaseIterable {
        /// A write that recorded events.
        case append = "evtool_appends_total"
        /// A write answered with the first outcome of its Idempotency-Key.
        case idempotentReplay = "evtool_idempotent_replays_total"
    }

    /// The upper bounds of the latency buckets, in seconds.
    package static let buckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

    struct State {
        var requests: [String: [Int: Int]] = [:]
        var bucketCounts: [String: [Int]] = [:]
        var sums: [String: Double] = [:]
        var counters: [Counter: Int] = [:]

        /// Adds `other`'s counts to these.
        mutating func add(_ other: State) {
            for (route, statuses) in other.requests {
                requests[route, default: [:]].merge(statuses, uniquingKeysWith: +)
            }
            for (route, counts) in other.bucketCounts {
                bucketCounts[route] = zip(bucketCounts[route] ?? Array(repeating: 0, count: counts.count), counts).map(+)
            }
            sums.merge(other.sums, uniquingKeysWith: +)
            counters.merge(other.counters, uniquingKeysWith: +)
        }
    }

    /// The counts, in shards each behind its own lock, a thread counting in the shard its id
    /// picks: every request is counted, and with one lock for all of them the server's
    /// threads queued there (a third of the processor time went to waiting for it in `perf`,
    /// under a flood of requests answered at once, such as 401s). A scrape adds them up.
    private let shards: [Locked<State>] = (0..<(1 << Metrics.shardBits)).map { _ in Locked(State()) }
    static let shardBits = 4

    /// The shard of the calling thread.
    private var shard: Locked<State> {
        #if canImport(Glibc)
        let thread = UInt(pthread_self())
        #else
        let thread = UInt(bitPattern: pthread_self())
        #endif
        // Fibonacci hashing: the top bits of the product mix every bit of the id.
        return shards[Int(truncatingIfNeeded: (thread &* 0x9E37_79B9_7F4A_7C15) >> UInt(UInt.bitWidth - Self.shardBits))]
    }

    /// Makes empty metrics.
    package init() {}

    /// Counts one answered request.
    package func observe(route: String, status: Int, duration: Duration) {
        let seconds = duration.timeInterval
        let index = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
        shard.withLock { state in
            state.requests[route, default: [:]][status, default: 0] += 1
            // In place: a copy taken out and put back would copy the array under the lock.
            state.bucketCounts[route, default: Array(repeating: 0, count: Self.buckets.count + 1)][index] += 1
            state.sums[route, default: 0] += seconds
        }
    }

    /// Counts one event of `counter`.
    package func count(_ counter: Counter) {
        shard.withLock { $0.counters[counter, default: 0] += 1 }
    }

    /// Everything counted so far, the shards added up.
    private var total: State {
        var total = State()
        for shard in shards { total.add(shard.withLock { $0 }) }
        return total
    }

    /// Requests answered so far with `status` on `route` (for tests).
    package func requests(route: String, status: Int) -> Int {
        shards.reduce(0) { sum, shard in sum + shard.withLock { $0.requests[route]?[status] ?? 0 } }
    }

    /// The exposition text; `gauges` adds values read at scrape time (e.g. projection lag), each
    /// typed a counter when its name ends in `_total`, else a gauge.
    package func text(gauges: [(name: String, help: String, labels: String, value: Int64)] = []) -> String {
        let state = total
        var text = "# HELP evtool_http_requests_total Requests answered, by route and status.\n# TYPE evtool_http_requests_total counter\n"
        for route in state.requests.keys.sorted() {
            for (status, count) in state.requests[route, default: [:]].sorted(by: { $0.key < $1.key }) {
                text += "evtool_http_requests_total{route=\"\(route)\",status=\"\(status)\"} \(count)\n"
            }
        }
        text += "# HELP evtool_http_request_duration_seconds Time from routing to the response, by route.\n# TYPE evtool_http_request_duration_seconds histogram\n"
        for route in state.bucketCounts.keys.sorted() {
            let counts = state.bucketCounts[route, default: []]
            var cumulative = 0
            for (index, bound) in Self.buckets.enumerated() {
                cumulative += counts[index]
                text += "evtool_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"\(bound)\"} \(cumulative)\n"
            }
            cumulative += counts[Self.buckets.count]
            text += "evtool_http_request_duration_seconds_bucket{route=\"\(route)\",le=\"+Inf\"} \(cumulative)\n"
            text += "evtool_http_request_duration_seconds_sum{route=\"\(route)\"} \(state.sums[route, default: 0])\n"
            text += "evtool_http_request_duration_seconds_count{route=\"\(route)\"} \(cumulative)\n"
        }
        let byStatus = { (codes: Set<Int>) in state.requests.values.reduce(0) { $0 + $1.filter { codes.contains($0.key) }.values.reduce(0, +) } }
        text += "# HELP evtool_conflicts_total Writes refused by a concurrency check (409, 412).\n# TYPE evtool_conflicts_total counter\n"
        text += "evtool_conflicts_total \(byStatus([409, 412]))\n"
        text += "# HELP evtool_store_errors_total Requests answered 503 because the store was unavailable.\n# TYPE evtool_store_errors_total counter\n"
        text += "evtool_store_errors_total \(byStatus([503]))\n"
        for counter in Counter.allCases {
            text += "# TYPE \(counter.rawValue) counter\n\(counter.rawValue) \(state.counters[counter, default: 0])\n"
        }
        var seen = Set<String>()
        for gauge in gauges {
            // A cumulative count is named `…_total` and typed a counter (Prometheus's naming
            // rule); anything else is a level that can fall, a gauge.
            let type = gauge.name.hasSuffix("_total") ? "counter" : "gauge"
            if seen.insert(gauge.name).inserted { text += "# HELP \(gauge.name) \(gauge.help)\n# TYPE \(gauge.name) \(type)\n" }
            text += "\(gauge.name)\(gauge.labels.isEmpty ? "" : "{\(gauge.labels)}") \(gauge.value)\n"
        }
        return text
    }
}
