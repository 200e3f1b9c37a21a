/// Why a Merkle proof did not verify or could not be made.
public enum MerkleProofError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The sizes or index cannot have a proof (for example a leaf index at or beyond the size).
    case impossible(String)
    /// The proof has the wrong number of hashes, or a hash of the wrong length.
    case malformed(String)
    /// The proof's hashes do not lead to the root it should (names which root).
    case mismatch(String)
    /// The leaves given to a builder ended before the tree's size.
    case missingLeaves(expected: UInt64, got: UInt64)

    public var description: String {
        switch self {
        case .impossible(let text), .malformed(let text), .mismatch(let text): text
        case .missingLeaves(let expected, let got): "the log has \(got.counted("event")), not the \(expected) the proof needs"
        }
    }
}
