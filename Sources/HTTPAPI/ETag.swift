/// Entity tags for user resources: the user's stream version, as a strong tag (`"12"`).
public enum ETag {
    /// The tag for a stream version.
    public static func text(_ version: Int64) -> String { "\"\(version)\"" }

    /// What an `If-Match` header asks for.
    public enum Precondition: Sendable, Hashable {
        /// `*`: the user's stream must exist.
        case exists
        /// The stream must be at this version.
        case version(Int64)
        /// Nothing this server ever tags (a weak or foreign tag): never true.
        case never
    }

    /// Parses `If-Match`: `*`, or one or more tags separated by commas (the first of ours counts).
    public static func precondition(ifMatch header: String) -> Precondition {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return .exists }
        for tag in trimmed.split(separator: ",") {
            let tag = tag.trimmingCharacters(in: .whitespaces)
            // Weak tags never match with If-Match (RFC 9110 §13.1.1: strong comparison).
            guard tag.count >= 3, tag.hasPrefix("\""), tag.hasSuffix("\""), let version = Int64(tag.dropFirst().dropLast()), version >= 0 else { continue }
            return .version(version)
        }
        return .never
    }
}
