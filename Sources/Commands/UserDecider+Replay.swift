import EventLog

extension UserDecider {
    /// Whether `recorded`, the first event a request recorded, is what `command` records: the
    /// test that a retry carrying the same request id is the same request (an HTTP
    /// `Idempotency-Key` reused with another body or on another route is not).
    ///
    /// The command is decided as it would be on a state where it records (a removal on a state
    /// where the listing is a favorite), with the same normalization, so an id spelled in
    /// another Unicode form is the same id. Only the payload is compared: the time, source and
    /// other metadata of a retry may differ.
    /// - Throws: ``CommandError`` when the command breaks a rule (then it is not the same
    ///   request either, and the caller answers with the rule).
    public static func records(_ command: UserCommand, as recorded: DomainEvent) throws -> Bool {
        var state = initialState
        if case let .unfavorite(listingID) = command {
            state.favorites.insert(try Rules.identifier(listingID, field: "listing id"))
        }
        guard case let .record(events) = try decision(command, state: state), let first = events.first else { return false }
        return first == recorded
    }
}
