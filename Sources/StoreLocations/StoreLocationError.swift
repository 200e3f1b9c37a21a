/// Why a store location could not be used, in words a user understands (the command line
/// prints it as `Error: …`; a location's password never appears in it).
public enum StoreLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The location text is malformed: empty, an `sqlite:` without a path, a libpq key/value
    /// string, an unknown URL scheme, or an empty `schema=` (the command line's exit 64).
    case invalidLocation(String)
    /// The store opened but cannot do what was asked: hold views, or take copied logs (the
    /// command line's exit 69).
    case unsupported(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case let .invalidLocation(message), let .unsupported(message): return message
        }
    }
}
