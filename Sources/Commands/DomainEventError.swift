/// Why stored event bytes could not be read as a domain event.
public enum DomainEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type name is not one this release knows.
    case unknownType(String)
    /// The event was written with a newer schema than this release reads; upgrade evtool.
    case newerSchema(type: String, found: Int, supported: Int)
    /// The bytes are not a well-formed event of that type; `reason` says what is wrong.
    case malformed(type: String, reason: String)

    public var description: String {
        switch self {
        case let .unknownType(type):
            return "unknown event type '\(type)'"
        case let .newerSchema(type, found, supported):
            return "\(type) event has schema version \(found), but this evtool reads up to \(supported); upgrade evtool"
        case let .malformed(type, reason):
            return "\(type) event is malformed: \(reason)"
        }
    }
}
