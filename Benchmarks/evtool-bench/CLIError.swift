/// evtool-bench's exit codes: the subset of evtool's (see `evtool --help`) that it can end with.
enum ExitCode: Int32 {
    /// Every benchmark ran.
    case ok = 0
    /// A benchmark failed (a store error, or a run that read back the wrong number of events).
    case failure = 1
    /// The command line is wrong: unknown suite or option, missing or malformed value.
    case usage = 64
}

/// A failure printed as `Error: …`, ending the program with its exit code.
struct CLIError: Error {
    var message: String
    var code: ExitCode

    static func usage(_ message: String) -> CLIError { CLIError(message: message, code: .usage) }
}
