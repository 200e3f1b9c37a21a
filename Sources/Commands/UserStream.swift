/// Where a user's events live: one stream per user, named by the user id.
///
/// Keeping the mapping in one place lets a later release prefix or hash stream ids
/// without hunting for every caller.
public enum UserStream {
    /// The stream id of a user's events: the user id itself.
    /// - Parameter user: a user id that passed ``Rules/checkIdentifier(_:field:)``.
    @inlinable
    public static func id(for user: String) -> String {
        user
    }

    /// The user whose events a stream holds: the inverse of ``id(for:)``.
    @inlinable
    public static func userID(ofStream stream: String) -> String {
        stream
    }
}
