import Foundation

/// How wide help is folded: `$COLUMNS` when set to a number, else the width of the terminal
/// on standard output, else 80 columns (a pipe, a file).
enum TerminalWidth {
    /// Narrower than this, help is folded at this width all the same.
    static let minimum = 40

    /// The width for this process: its environment and standard output.
    static var current: Int { of(environment: ProcessInfo.processInfo.environment, descriptor: 1) }

    /// The width `environment`'s `COLUMNS` asks for, else that of the terminal on `descriptor`, else 80.
    static func of(environment: [String: String], descriptor: Int32) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)), columns > 0 {
            return max(columns, minimum)
        }
        if isatty(descriptor) == 1 {
            var size = winsize()
            if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return max(Int(size.ws_col), minimum) }
        }
        return 80
    }
}
