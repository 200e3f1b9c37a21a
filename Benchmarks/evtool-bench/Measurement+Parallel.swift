import Foundation
import EventLog

extension Measurement {
    /// Runs `body(i)` for i in 0..<count, each on a thread of its own, all at once, and
    /// returns when every one has finished. `DispatchQueue.concurrentPerform` would run at
    /// most one iteration per core at a time (2 on the CI machine), so "8 writers" would be 2.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let group = DispatchGroup()
        let threads = (0..<count).map { index in
            group.enter()
            return Thread {
                body(index)
                group.leave()
            }
        }
        threads.forEach { $0.start() }
        group.wait()
    }
}

/// One comparison measured in several rounds, each round timing ours and the baseline back
/// to back, so that a slow minute of the shared disk lands on both sides of one round.
struct RoundPairs {
    /// Events per second: (ours, baseline) for each round, in order.
    private(set) var rounds: [(ours: Double, baseline: Double)] = []

    mutating func add(ours: Double, baseline: Double) { rounds.append((ours, baseline)) }

    /// The median of our rates over the rounds.
    var oursMedian: Double { Measurement.median(rounds.map(\.ours)) }
    /// The median of the baseline's rates over the rounds.
    var baselineMedian: Double { Measurement.median(rounds.map(\.baseline)) }

    /// Each round's ratio, and their median and range: "per round 1.02 0.95 1.10; median 1.02, spread 0.95–1.10".
    var line: String {
        let ratios = rounds.map { $0.ours / $0.baseline }
        let each = rounds.map { String(Int($0.ours.rounded())).groupedThousands + "/" + String(Int($0.baseline.rounded())).groupedThousands }
        let format = { (value: Double) in String(format: "%.2f", value) }
        guard let low = ratios.min(), let high = ratios.max() else { return "no rounds" }
        return "per round (evtool/s / baseline/s): " + each.joined(separator: ", ")
            + "; ratio median " + format(Measurement.median(ratios)) + ", spread " + format(low) + "–" + format(high)
    }
}
