import Foundation

/// What handling a valid command did.
public enum CommandOutcome: Sendable, Hashable, CustomStringConvertible {
    /// Events were appended: their ids, the user's stream version after them, and their positions in the log.
    case recorded(eventIDs: [UUID], streamVersion: Int64, positions: ClosedRange<Int64>)
    /// Nothing was appended, and why; a success for the caller: the state is what they asked for.
    case unchanged(Unchanged)

    /// Whether events were appended.
    public var isRecorded: Bool {
        if case .recorded = self { return true }
        return false
    }

    /// One line for a person: what was recorded where, or why nothing was.
    public var description: String {
        switch self {
        case let .recorded(ids, version, positions):
            let what = ids.count.counted("event")
            let place = positions.count == 1 ? "position \(positions.lowerBound)" : "positions \(positions.lowerBound)–\(positions.upperBound)"
            return "recorded \(what) (stream version \(version), \(place))"
        case .unchanged(let reason):
            return reason.description
        }
    }
}
