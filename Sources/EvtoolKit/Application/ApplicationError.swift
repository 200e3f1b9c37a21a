import Commands
import EventLog
import Foundation
import Projections

/// Why the application could not do what was asked, in words a user understands.
///
/// Every face maps these to its own signals (the HTTP API to status codes); the messages are
/// the ones the command line prints, and never hold a payload, a SQL text or a password.
public enum ApplicationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The request broke a rule: `field` names what was wrong (nil when no single field is).
    case invalid(field: String?, message: String)
    /// The user's stream was not at the version the client decided on; nothing was recorded.
    case versionMismatch(expected: Int64, actual: Int64)
    /// Other writers kept winning, or the store refused a duplicate; nothing was recorded.
    case conflict(String)
    /// The store cannot be reached, or a write's outcome was lost; trying again is safe
    /// (with the same request id for a write).
    case unavailable(String)
    /// The store refused a privilege the operation needs (the store's role may not do it);
    /// nothing was changed. A deployment problem, not the client's.
    case permissionDenied(String)
    /// The store is damaged, newer than this release, or holds an event it cannot read.
    case failed(String)
    /// The request id was already used by a different request (another action, listing or
    /// body) of the same user: nothing was recorded, and the first request's outcome stands.
    case requestIDReused(requestID: String, message: String)
    /// What was asked about is not in the log: a user with no events, for the reads of one
    /// user's record (history, the audit page); the views of such a user are empty instead.
    case notFound(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case let .requestIDReused(_, message):
            return message
        case let .invalid(_, message), let .conflict(message), let .unavailable(message), let .permissionDenied(message), let .failed(message),
             let .notFound(message):
            return message
        case let .versionMismatch(expected, actual):
            return "the user's events are at version \(actual), not \(expected) as the request expected; nothing was recorded"
        }
    }

    /// The application error for any error the libraries throw.
    public init(_ error: any Error) {
        switch error {
        case let error as ApplicationError:
            self = error
        case let error as CommandError:
            switch error {
            case let .rejected(field, _): self = .invalid(field: field, message: error.description)
            case .conflict: self = .conflict(error.description)
            }
        case let error as EventStoreError:
            switch error {
            case .unavailable, .outcomeUnknown: self = .unavailable(error.description)
            case .invalidInput: self = .invalid(field: nil, message: error.description)
            case .wrongExpectedVersion, .duplicateEventID: self = .conflict(error.description)
            case .corrupt, .newerSchema: self = .failed(error.description)
            case .permissionDenied: self = .permissionDenied(error.description)
            }
        case let error as ProjectionStoreError:
            self = .conflict(error.description)
        case let error as DomainEventError:
            self = .failed(error.description)
        default:
            self = .failed("the request failed: \(type(of: error))")
        }
    }
}
