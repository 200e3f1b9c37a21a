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
    }

    private let state = Mutex(State())

    /// Makes empty metrics.
    package init() {}

    /// Counts one answered request.
    package func observe(route: String, status: Int, duration: Duration) {
        let seconds = duration.timeInterval
        state.withLock { state in
            state.requests[route, default: [:]][status, default: 0] += 1
            var counts = state.bucketCounts[route] ?? Array(repeating: 0, count: Self.buckets.count + 1)
            let index = Self.buckets.firstIndex { seconds <= $0 } ?? Self.buckets.count
            counts[index] += 1
            state.bucketCounts[route] = counts
            state.sums[route, default: 0] += seconds
        }
    }

    /// Counts one event of `counter`.
    package func count(_ counter: Counter) {
        state.withLock { $0.counters[counter, default: 0] += 1 }
    }

    /// Requests answered so far with `status` on `route` (for tests).
    package func requests(route: String, status: Int) -> Int {
        state.withLock { $0.requests[route]?[status] ?? 0 }
    }

    /// The exposition text; `gauges` adds values read at scrape time (e.g. projection lag), each
    /// typed a counter when its name ends in `_total`, else a gauge.
    package func text(gauges: [(name: String, help: String, labels: String, value: Int64)] = []) -> String {
        let state = state.withLock { $0 }
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
