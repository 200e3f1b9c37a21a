import EventLog

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

extension UserStream {
    /// The stream a query or an erasure names by a typed user id: the id as recorded now (NFC,
    /// ``Rules/identifier(_:field:)``). Streams recorded before that rule stay reachable: when
    /// no stream has the NFC id but one has the id exactly as typed (not NFC), that one; an id
    /// the rules now refuse for an invisible format character names the stream of exactly
    /// those bytes when there is one. An id that no write may record (only spaces, or a space
    /// at either end: ``Rules/checkNewIdentifier(_:field:)``) names a stream only when one has
    /// it: a user nobody recorded under such an id is refused as a write refuses it, so every
    /// face and route holds ids to one rule.
    ///
    /// Cost: nothing for an id typed in NFC; otherwise one or two version lookups.
    /// - Throws: ``CommandError/rejected(field:rule:)`` for an id that breaks the rules and
    ///   names no stream, and for the id of one of evtool's own streams (``Rules/userID(_:)``:
    ///   `$erasures` is not a user); the store's errors.
    public static func existing(typed user: String, in store: any EventStore) throws -> String {
        if let rule = AppendValidation.reservedStreamRule(user) {
            throw CommandError.rejected(field: "user id", rule: rule)
        }
        let id: String
        do {
            id = try Rules.userID(user)
        } catch let refused as CommandError {
            // Control characters were always refused, so only a format or separator character
            // can be in an id recorded before.
            guard Identifier.invisibleCharacter(in: user) != nil, user.utf8.count <= AppendValidation.maximumStreamIDLength,
                  !user.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
                  try store.version(of: user) > 0 else { throw refused }
            return user
        }
        if Rules.isBlank(id) || Rules.hasEdgeWhitespace(id), try store.version(of: id) == 0, try store.version(of: user) == 0 {
            try Rules.checkNewIdentifier(id, field: "user id")
        }
        if id.utf8.elementsEqual(user.utf8) { return id }
        if try store.version(of: id) == 0, try store.version(of: user) > 0 { return user }
        return id
    }
}
