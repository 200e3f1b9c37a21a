import Commands
import Foundation

/// A write request routed, authorized and decoded into its user command, ready to be recorded
/// on whichever thread the server chooses (``API/prepareWrite(_:)``).
public struct PreparedWrite: Sendable {
    /// The command the body asks for.
    var command: UserCommand
    /// Who, from where, when, with which request id.
    var context: CommandContext
    /// The version `If-Match` names; nil without one (or for `*`, see ``ifMatchesAny``).
    var requiredVersion: Int64?
    /// `If-Match: *`: the version is the stream's now, which takes a read.
    var ifMatchesAny: Bool
    /// The path's user, as sent.
    var user: String
    /// The route's name (for metrics) and when the request was taken up.
    var route = ""
    var started = ContinuousClock.now
}
