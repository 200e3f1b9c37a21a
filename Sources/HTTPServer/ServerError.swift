/// Why the server cannot start.
public struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for one `Error: …` line.
    public var description: String
    /// Makes an error.
    public init(_ description: String) { self.description = description }
}
