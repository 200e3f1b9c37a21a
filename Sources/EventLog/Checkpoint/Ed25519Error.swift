/// Why an Ed25519 key could not be read or used.
public enum Ed25519Error: Error, Equatable, Sendable, CustomStringConvertible {
    /// The key's bytes or PEM text are not an Ed25519 key.
    case malformed(String)
    /// Signing needs the private key; this is a public key.
    case noPrivateKey
    /// libcrypto failed.
    case crypto(String)

    public var description: String {
        switch self {
        case .malformed(let text), .crypto(let text): text
        case .noPrivateKey: "this is a public key: signing needs the private key"
        }
    }
}
