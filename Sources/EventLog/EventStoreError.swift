import Foundation

/// The failures of an event store that a caller can act on.
///
/// Each case's ``description`` says what happened in words a user understands; it never
/// contains payloads or passwords.
public enum EventStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stream was not at the version the writer expected; nothing was appended.
    /// Reload the stream and decide again.
    case wrongExpectedVersion(stream: String, expected: ExpectedVersion, actual: Int64)
    /// An event with this id is already in the log (or twice in one batch); nothing was appended.
    case duplicateEventID(UUID)
    /// The store cannot be reached or opened (server down, wrong password, missing file).
    case unavailable(String)
    /// The store refused the operation for lack of a privilege: a PostgreSQL role without the
    /// grant (SQLSTATE 42501), or an SQLite file or folder the process may not read or write.
    /// The message names the privilege or the object. Not worth retrying as the same user.
    case permissionDenied(String)
    /// The store's contents are damaged or not an evtool store.
    case corrupt(String)
    /// The store was written by a newer release of evtool whose schema this one does not know.
    case newerSchema(found: Int, supported: Int)
    /// The request itself is malformed; the message names the field and the rule.
    case invalidInput(String)
    /// The connection was lost while the append was committing, so whether it took effect is
    /// unknown. Retrying with the same event ids is safe: a duplicate id is refused.
    case outcomeUnknown(String)

    public var description: String {
        switch self {
        case let .wrongExpectedVersion(stream, expected, actual):
            return "stream '\(stream)' is at version \(actual), but the append expected \(expected)"
        case let .duplicateEventID(id):
            return "an event with id \(id.uuidString.lowercased()) is already in the log"
        case let .unavailable(reason):
            return "the store is unavailable: \(reason)"
        case let .permissionDenied(reason):
            return "permission denied: \(reason)"
        case let .corrupt(reason):
            return "the store is damaged or not an evtool store: \(reason)"
        case let .newerSchema(found, supported):
            return "the store has schema version \(found), but this evtool supports up to \(supported); upgrade evtool"
        case let .invalidInput(reason):
            return "invalid input: \(reason)"
        case let .outcomeUnknown(reason):
            return "the append's outcome is unknown (\(reason)); retrying with the same event ids is safe"
        }
    }
}

extension EventStoreError: LocalizedError {
    public var errorDescription: String? { description }
}
