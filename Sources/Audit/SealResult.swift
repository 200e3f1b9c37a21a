import EventLog
import Foundation

/// A seal just recorded over a verified log, and the checkpoint of its Merkle tree when one was
/// made (signed when a key was given): what `evtool seal` and `POST /v1/admin/seal` answer.
public struct SealResult: Sendable, Hashable {
    /// The seal as recorded.
    public var seal: Seal
    /// The C2SP checkpoint over the sealed events (unsigned without a key); nil when none was
    /// asked for (`evtool seal` without `--key` or `--checkpoint-out`). The server always makes one.
    public var checkpoint: Checkpoint?
    /// Whether `checkpoint` carries a signature.
    public var isSigned: Bool { !(checkpoint?.signatures.isEmpty ?? true) }

    /// Makes a result.
    public init(seal: Seal, checkpoint: Checkpoint?) {
        self.seal = seal
        self.checkpoint = checkpoint
    }
}
