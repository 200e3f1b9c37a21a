import EventLog

/// Why a command was refused or could not be carried out. Nothing was recorded.
///
/// The ``description`` names the field and the rule, in words a user understands,
/// e.g. "keyword must not be empty or only spaces".
public enum CommandError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The command broke a rule: `field` names what was wrong, `rule` what it must be.
    case rejected(field: String, rule: String)
    /// Other writers kept changing the user's stream; the runner gave up after `attempts` tries.
    case conflict(user: String, attempts: Int)

    public var description: String {
        switch self {
        case let .rejected(field, rule):
            return "\(field) \(rule)"
        case let .conflict(user, attempts):
            return "the events of user '\(user)' kept changing while the command was handled; gave up after \(attempts.counted("attempt")), nothing was recorded; try again"
        }
    }
}
