/// Which way a stream is read.
public enum ReadDirection: Sendable, Hashable {
    /// Oldest first: versions at or above the starting version, ascending.
    case forwards
    /// Newest first: versions at or below the starting version, descending.
    case backwards
}
