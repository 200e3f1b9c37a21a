/// What ``UserDecider/decision(_:state:)`` concluded for a valid command.
public enum Decision: Sendable, Hashable {
    /// Record these events, in order.
    case record([DomainEvent])
    /// Record nothing: the state already is what the command asks for.
    case unchanged(Unchanged)

    /// The events to record (none when unchanged).
    public var events: [DomainEvent] {
        switch self {
        case .record(let events): return events
        case .unchanged: return []
        }
    }
}
