import Foundation
import EventLog

/// Progress of a long command on standard error: a bar with count, rate and time left on a
/// terminal, plain lines every few seconds otherwise.
struct Progress {
    let label: String
    let total: Int64
    let isTerminal: Bool
    /// What is counted: "events", "bytes".
    let unit: String
    private var lastPrinted = Date.distantPast
    /// The count and time of the first report: the rate is what was done after it (a resumed
    /// copy reports what was there already at once, which is no work done at that rate).
    private var baseline: (done: Int64, at: Date)?

    /// Whether nothing is printed (`--quiet`).
    let isQuiet: Bool

    init(label: String, total: Int64, unit: String = "events", console: Console) {
        self.label = label
        self.unit = unit
        self.total = max(total, 1)
        self.isTerminal = console.errorsGoToTerminal
        self.isQuiet = console.isQuiet
    }

    /// Reports `done` of `total`; prints at most every 0.1 s on a terminal, 5 s otherwise
    /// (nothing with `--quiet`).
    mutating func update(_ done: Int64, console: inout Console, force: Bool = false) {
        guard !isQuiet else { return }
        let now = Date()
        guard force || now.timeIntervalSince(lastPrinted) >= (isTerminal ? 0.1 : 5) else { return }
        lastPrinted = now
        let first = baseline ?? (done, now)
        baseline = first
        let measured = now.timeIntervalSince(first.at)
        let rate = measured >= 0.5 && done > first.done ? Double(done - first.done) / measured : nil
        let fraction = min(1, Double(done) / Double(total))
        let pace = rate.map { ", \(String(Int($0)).groupedThousands)/s, \(Self.duration(Double(total - min(done, total)) / $0)) left" }
            ?? (done >= total ? "" : ", measuring the rate")
        let counts = "\(String(done).groupedThousands)/\(String(total).groupedThousands) \(unit)\(pace)"
        if isTerminal {
            let width = 30
            let filled = Int(fraction * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            console.terminalText("\r\u{1B}[2K\(label) \(bar) \(Int(fraction * 100))% \(counts)")
        } else {
            console.message("\(label): \(Int(fraction * 100))% \(counts)")
        }
    }

    /// Ends the progress display (a newline after a terminal bar).
    func finish(console: inout Console) {
        if isTerminal, !isQuiet { console.terminalText("\n") }
    }

    static func duration(_ seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        return whole >= 60 ? "\(whole / 60)m\(String(whole % 60).leftPadded(to: 2))s" : "\(whole)s"
    }
}
