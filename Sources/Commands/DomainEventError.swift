import EventLog

/// Why stored event bytes could not be read as a domain event.
public enum DomainEventError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The type name is not one this release knows.
    case unknownType(String)
    /// The event was written with a newer schema than this release reads; upgrade evtool.
    case newerSchema(type: String, found: Int, supported: Int)
    /// The bytes are not a well-formed event of that type; `reason` says what is wrong.
    case malformed(type: String, reason: String)
    /// A recorded event could not be read (`error` says why): where it is in the log.
    indirect case unreadable(stream: String, version: Int64, position: Int64, DomainEventError)

    public var description: String {
        switch self {
        case let .unknownType(type):
            return "unknown event type '\(type)'"
        case let .newerSchema(type, found, supported):
            return "\(type) event has schema version \(found), but this evtool reads up to \(supported); upgrade evtool"
        case let .malformed(type, reason):
            return "\(type) event is malformed: \(reason)"
        case let .unreadable(stream, version, position, error):
            return "the event at position \(position) (stream '\(stream)', version \(version)) cannot be read: \(error)"
        }
    }
}

extension DomainEventError {
    /// `error` as the failure to read `recorded`, naming its stream, version and position
    /// (an error that already names them as it is).
    public static func reading(_ recorded: RecordedEvent, _ error: DomainEventError) -> DomainEventError {
        if case .unreadable = error { return error }
        return .unreadable(stream: recorded.streamID, version: recorded.version, position: recorded.position, error)
    }
}
