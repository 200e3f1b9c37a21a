/// Why `migrate` stopped, in words a user understands (the command line's exit 65).
public enum MigrationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The target holds events that are not a copy of this source's first events.
    case notACopy(String)
    /// After the copy, the two logs do not hold the same events in the same order.
    case verificationFailed(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case let .notACopy(message), let .verificationFailed(message): return message
        }
    }
}
