import EventLog

/// Why a long operation (verify, seal, forget, export, import, migrate, rebuild, prove,
/// check-proof) did not do what was asked, in words a user understands.
///
/// Each face maps the cases to its own signals: the command line to exit codes (see
/// `evtool --help`), the HTTP API to status codes. The messages are the ones the command line
/// prints after `Error: `; they never hold a payload or a password.
public enum OperationError: Error, Sendable, CustomStringConvertible {
    /// The store is not an evtool store (another file, another application's database).
    case notAStore(String)
    /// The store (or stream) holds nothing to work on, most likely the wrong store.
    case nothingToDo(String)
    /// The data is refused: the log fails verification, a file or line is malformed, an
    /// imported event conflicts with the store, a proof does not hold.
    case invalid(String)
    /// The store cannot do this (an in-memory store cannot keep seals, views or copies).
    case unsupported(String)
    /// The store was written by a newer evtool, whose schema this one cannot check.
    case newerSchema(String)
    /// Stopped at a batch boundary because the caller asked to (`shouldStop`); running the
    /// same operation again resumes.
    case interrupted(String)
    /// The store failed: the message says what of the operation was kept, `error` is the
    /// store's own error (for its kind: unavailable, permission denied, conflict …).
    case store(String, EventStoreError)
    /// A file could not be written (a checkpoint, a key).
    case cannotWrite(String)
    /// verify, seal: the store is a copy (`migrate`) that stopped before it was complete, and
    /// what it holds cannot pass as a whole log (a tombstone before the `UserErased` event that
    /// covers it, which the copy has not reached); the message names the command that
    /// completes it. Not tampering, and not a verified log either.
    case incompleteCopy(String)

    /// The message, as the command line prints it after `Error: `.
    public var description: String {
        switch self {
        case let .notAStore(message), let .nothingToDo(message), let .invalid(message), let .unsupported(message),
             let .newerSchema(message), let .interrupted(message), let .store(message, _), let .cannotWrite(message),
             let .incompleteCopy(message):
            return message
        }
    }
}
