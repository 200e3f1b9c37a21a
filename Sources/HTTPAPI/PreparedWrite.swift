import Commands
import Foundation

/// A write request routed, authorized and decoded into its user command, ready to be recorded
/// on whichever thread the server chooses (``API/prepareWrite(_:)``).
package struct PreparedWrite: Sendable {
    /// The command the body asks for.
    var command: UserCommand
    /// Who, from where, when, with which request id.
    var context: CommandContext
    /// The version `If-Match` names when it names exactly one; nil without one (and for the
    /// other forms, see ``readsFirst``).
    var requiredVersion: Int64?
    /// An `If-Match` that is checked against the stream's version now, which takes a read:
    /// `*`, a list of several versions, or tags that name none (412 with the current ETag);
    /// nil when there is no `If-Match` or it names one version.
    var readsFirst: (precondition: ETag.Precondition, header: String)?
    /// The path's user, as sent.
    var user: String
    /// The route's name (for metrics) and when the request was taken up.
    var route = ""
    var started = ContinuousClock.now
}
