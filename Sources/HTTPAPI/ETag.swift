/// Entity tags for user resources: the user's stream version, as a strong tag (`"12"`).
package enum ETag {
    /// The tag for a stream version.
    package static func text(_ version: Int64) -> String { "\"\(version)\"" }

    /// What an `If-Match` header asks for.
    package enum Precondition: Sendable, Hashable {
        /// `*`: the user's stream must exist.
        case exists
        /// The stream must be at one of these versions (sorted, at least one).
        case versions([Int64])
        /// Nothing this server ever tags (only weak or foreign tags): never true.
        case never
    }

    /// Parses `If-Match` (RFC 9110 §13.1.1): `*`, or a list of tags separated by commas (two
    /// `If-Match` headers arrive joined as one list). The request's precondition holds when the
    /// user's stream is at any version the list names. Tags compare strongly and as opaque
    /// text: only this server's own form, `"12"`, names a version (not `"012"`, `"+12"` or
    /// `W/"12"`); any other tag names none.
    package static func precondition(ifMatch header: String) -> Precondition {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        if trimmed == "*" { return .exists }
        var versions = Set<Int64>()
        for tag in trimmed.split(separator: ",") {
            let tag = tag.trimmingCharacters(in: .whitespaces)
            guard tag.count >= 3, tag.hasPrefix("\""), tag.hasSuffix("\"") else { continue }
            let inner = tag.dropFirst().dropLast()
            guard let version = Int64(inner), version >= 0, String(version) == inner else { continue }
            versions.insert(version)
        }
        return versions.isEmpty ? .never : .versions(versions.sorted())
    }
}
