/// Why the server cannot start.
package struct ServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong, for one `Error: …` line.
    package var description: String
    /// Makes an error.
    package init(_ description: String) { self.description = description }
}
