import Foundation
import EventLog

/// One line of a benchmark report: our rate beside a same-run baseline's.
struct BenchFigure {
    var operation: String
    var ours: Double
    var baseline: Double
    var baselineName: String
    /// The lowest acceptable ours/baseline ratio, if the issue sets one.
    var target: Double?

    var ratio: Double { ours / baseline }

    var line: String {
        let verdict = target.map { ratio >= $0 ? "≥ \(format($0)) ok" : "< \(format($0)) MISSED" } ?? ""
        return operation.padded(to: 44) + rate(ours).leftPadded(to: 12, with: " ") + rate(baseline).leftPadded(to: 12, with: " ")
            + format(ratio).leftPadded(to: 8, with: " ") + "  " + verdict + "   (baseline: \(baselineName))"
    }

    static let header = "operation".padded(to: 44) + "evtool/s".leftPadded(to: 12, with: " ") + "raw/s".leftPadded(to: 12, with: " ")
        + "ratio".leftPadded(to: 8, with: " ") + "  target"

    private func rate(_ value: Double) -> String { String(Int(value.rounded())).groupedThousands }
    private func format(_ value: Double) -> String { String(format: "%.2f", value) }
}

