import EventLog
import Foundation

/// A seal just recorded over a verified log, and the checkpoint of its Merkle tree (signed when
/// a key was given).
public struct SealResult: Sendable, Hashable {
    /// The seal as recorded.
    public var seal: Seal
    /// The C2SP checkpoint over the sealed events (unsigned without a key).
    public var checkpoint: Checkpoint
    /// Whether `checkpoint` carries a signature.
    public var isSigned: Bool { !checkpoint.signatures.isEmpty }
}
