/// One step of a long operation's progress (verify, seal, import, migrate, rebuild), for the
/// face to render: a bar on a terminal, lines in a log file, nothing at all.
///
/// An operation reports ``started(label:total:unit:)`` once, then ``advanced(_:)`` after each
/// batch (the renderer throttles), ``completed(_:)`` with the final count when it got to the
/// end, and ``finished`` whenever it stops reporting (at the end, on an error, when
/// interrupted), so that a display can be closed.
public enum ProgressStep: Sendable, Equatable {
    /// The work starts: `total` units (events, positions, bytes: `unit`) are to be done.
    case started(label: String, total: Int64, unit: String)
    /// `done` of the total are done.
    case advanced(Int64)
    /// Everything is done: `done` is the final count (worth showing even when throttled).
    case completed(Int64)
    /// No more steps follow.
    case finished
}

/// Receives an operation's ``ProgressStep``s; an error it throws stops the operation.
public typealias ProgressHandler = (ProgressStep) throws -> Void
