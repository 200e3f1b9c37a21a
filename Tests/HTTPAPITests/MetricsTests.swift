import Foundation
@testable import HTTPAPI
import Testing

/// `/metrics`' counts, kept in per-thread shards: what many threads count at once adds up
/// exactly in the exposition text, request by request, bucket by bucket.
struct MetricsTests {
    /// The sample named `name` (labels included) in `text`.
    static func sample(_ name: String, in text: String) -> Double? {
        text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.dropFirst(name.count + 1)) }
    }

    @Test func countsFromManyThreadsAtOnceAddUpExactly() throws {
        let metrics = Metrics()
        let threads = 8, perThread = 5_000
        let done = DispatchSemaphore(value: 0)
        for thread in 0..<threads {
            Thread.detachNewThread {
                // Thread t answers in t milliseconds: 0 and 1 ms fall in the `le="0.001"`
                // bucket, 2 in 0.0025, 3–5 in 0.005, 6 and 7 in 0.01.
                let duration = Duration.milliseconds(thread)
                for index in 0..<perThread {
                    metrics.observe(route: thread.isMultiple(of: 2) ? "addFavorite" : "favorites",
                                    status: index.isMultiple(of: 10) ? 409 : 201, duration: duration)
                    if index.isMultiple(of: 100) { metrics.count(.append) }
                }
                done.signal()
            }
        }
        for _ in 0..<threads {
            #expect(done.wait(timeout: .now() + 60) == .success)
        }
        let text = metrics.text()
        let perRoute = threads / 2 * perThread
        for route in ["addFavorite", "favorites"] {
            #expect(Self.sample(#"evtool_http_requests_total{route="\#(route)",status="201"}"#, in: text) == Double(perRoute * 9 / 10))
            #expect(Self.sample(#"evtool_http_requests_total{route="\#(route)",status="409"}"#, in: text) == Double(perRoute / 10))
            #expect(Self.sample(#"evtool_http_request_duration_seconds_count{route="\#(route)"}"#, in: text) == Double(perRoute))
            #expect(Self.sample(#"evtool_http_request_duration_seconds_bucket{route="\#(route)",le="+Inf"}"#, in: text) == Double(perRoute))
            #expect(metrics.requests(route: route, status: 409) == perRoute / 10)
        }
        // addFavorite: threads 0, 2, 4, 6; favorites: 1, 3, 5, 7 (cumulative buckets).
        let bucket = { (route: String, bound: String) in Self.sample(#"evtool_http_request_duration_seconds_bucket{route="\#(route)",le="\#(bound)"}"#, in: text) }
        #expect(bucket("addFavorite", "0.0005") == Double(perThread))
        #expect(bucket("addFavorite", "0.0025") == Double(2 * perThread))
        #expect(bucket("addFavorite", "0.005") == Double(3 * perThread))
        #expect(bucket("addFavorite", "0.01") == Double(4 * perThread))
        #expect(bucket("favorites", "0.001") == Double(perThread))
        #expect(bucket("favorites", "0.005") == Double(3 * perThread))
        #expect(bucket("favorites", "0.01") == Double(4 * perThread))
        let sum = try #require(Self.sample(#"evtool_http_request_duration_seconds_sum{route="favorites"}"#, in: text))
        #expect(abs(sum - Double(perThread) * (0.001 + 0.003 + 0.005 + 0.007)) < 1e-6, "\(sum)")
        #expect(Self.sample("evtool_conflicts_total", in: text) == Double(2 * perRoute / 10))
        #expect(Self.sample("evtool_appends_total", in: text) == Double(threads * perThread / 100))
    }
}
