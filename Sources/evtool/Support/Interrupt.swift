import Foundation
import Synchronization

/// Ctrl-C for long commands: the first SIGINT asks them to stop at the next batch boundary
/// (so a rerun resumes cleanly); a second one ends the process at once.
enum Interrupt {
    private static let requested = Atomic<Bool>(false)

    /// Starts catching SIGINT and SIGTERM.
    static func install() {
        let handler: @convention(c) (Int32) -> Void = { _ in
            if Interrupt.requested.exchange(true, ordering: .relaxed) { _exit(130) }
        }
        signal(SIGINT, handler)
        signal(SIGTERM, handler)
    }

    /// Whether a stop was asked for.
    static var isRequested: Bool { requested.load(ordering: .relaxed) }

    /// Throws the "stopped" error when a stop was asked for.
    static func check(_ what: String) throws {
        if isRequested { throw CLIError(message: "interrupted; \(what)", code: .interrupted) }
    }
}
