/// Why a checkpoint could not be read or its signature does not hold.
public enum CheckpointError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a checkpoint (names the line).
    case malformed(String)
    /// It has no signature, and a public key was given to check one.
    case unsigned
    /// No signature line is by the given key (the key ids it has, hex).
    case otherKey([String])
    /// The given key's signature line does not verify: the body or the signature was changed.
    case forged

    public var description: String {
        switch self {
        case .malformed(let text): "not a checkpoint: \(text)"
        case .unsigned: "the checkpoint is not signed"
        case .otherKey(let ids): "the checkpoint is not signed by this key (it has signatures by key \(ids.joined(separator: ", ")))"
        case .forged: "the checkpoint's signature does not verify: the checkpoint or its signature was changed (forged)"
        }
    }
}
