import Transfer

/// Renders a library operation's ``ProgressStep``s on standard error with ``Progress``.
struct ProgressRenderer {
    /// Below this many units, no progress is shown (verify shows it from 100,000 events).
    var minimumTotal: Int64 = 0
    /// Shows progress only when standard error is a terminal (import keeps logs quiet).
    var terminalOnly = false
    private var progress: Progress?

    init(minimumTotal: Int64 = 0, terminalOnly: Bool = false) {
        self.minimumTotal = minimumTotal
        self.terminalOnly = terminalOnly
    }

    /// Shows one step.
    mutating func render(_ step: ProgressStep, console: inout Console) {
        switch step {
        case let .started(label, total, unit):
            guard total >= minimumTotal, !terminalOnly || console.errorsGoToTerminal else { return }
            progress = Progress(label: label, total: total, unit: unit, console: console)
        case .advanced(let done):
            progress?.update(done, console: &console)
        case .completed(let done):
            progress?.update(done, console: &console, force: true)
        case .finished:
            progress?.finish(console: &console)
            progress = nil
        }
    }
}
