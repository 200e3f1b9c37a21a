/// Why the Merkle tree a store keeps is not the tree of its log (found by
/// ``KeptTreeCheck/verify(_:batchSize:)``): the subtree and what is wrong with it.
public struct KeptTreeFailure: Error, Equatable, Sendable, CustomStringConvertible {
    /// The first kept subtree found wrong (or missing, or in surplus).
    public let key: MerkleNodeKey
    /// What is wrong with it.
    public let reason: String

    /// A failure of `key`.
    public init(key: MerkleNodeKey, reason: String) {
        self.key = key
        self.reason = reason
    }

    public var description: String { "the kept Merkle tree's \(key) \(reason)" }
}
