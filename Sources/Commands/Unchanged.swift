/// Why a command that succeeded recorded nothing: the user's state already was what they asked for.
public enum Unchanged: Sendable, Hashable, CustomStringConvertible {
    /// The listing was already a favorite.
    case alreadyFavorite(listingID: String)
    /// The listing was not a favorite.
    case notFavorite(listingID: String)
    /// A request with this id was already recorded (a client retried).
    case alreadyRecorded(requestID: String)

    public var description: String {
        switch self {
        case let .alreadyFavorite(listingID):
            return "listing '\(listingID)' is already a favorite; nothing recorded"
        case let .notFavorite(listingID):
            return "listing '\(listingID)' is not a favorite; nothing recorded"
        case let .alreadyRecorded(requestID):
            return "request '\(requestID)' was already recorded; nothing recorded again"
        }
    }
}
