/// What a writer believes about a stream's current version when it appends.
///
/// Versions count a stream's events from 1; a stream with no events is at version 0.
/// A store checks the expectation and appends in one atomic step, so two writers that
/// hold the same expectation cannot both succeed.
public enum ExpectedVersion: Sendable, Hashable, CustomStringConvertible {
    /// Append whatever the stream's version is.
    case any
    /// The stream must have no events yet.
    case noStream
    /// The stream must have at least one event.
    case streamExists
    /// The stream's current version must be exactly this one (0 means no events yet).
    case exactly(Int64)

    /// Whether a stream at `actual` satisfies this expectation.
    public func isSatisfied(by actual: Int64) -> Bool {
        switch self {
        case .any: return true
        case .noStream: return actual == 0
        case .streamExists: return actual > 0
        case .exactly(let version): return actual == version
        }
    }

    public var description: String {
        switch self {
        case .any: return "any version"
        case .noStream: return "no stream"
        case .streamExists: return "an existing stream"
        case .exactly(let version): return "version \(version)"
        }
    }
}
