import CCrypto
import Foundation

/// An Ed25519 key pair or public key (RFC 8032) through libcrypto, read and written as the
/// PEM files OpenSSL itself reads (`openssl pkey -in KEY.pem -text`): PKCS #8 for the private
/// key, SubjectPublicKeyInfo for the public one.
public struct Ed25519Key: Sendable, Hashable {
    /// The 32-byte public key.
    public let publicKey: [UInt8]
    /// The 32-byte private key (seed); nil for a public key alone.
    public let privateKey: [UInt8]?

    /// The DER prefixes of the two PEM forms: what precedes the 32 raw bytes (RFC 8410).
    static let privatePrefix: [UInt8] = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20]
    static let publicPrefix: [UInt8] = [0x30, 0x2A, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x70, 0x03, 0x21, 0x00]

    /// A new key pair from libcrypto's random generator.
    /// - Throws: ``Ed25519Error/crypto(_:)`` when libcrypto fails.
    public static func generate() throws(Ed25519Error) -> Ed25519Key {
        var seed = [UInt8](repeating: 0, count: 32)
        guard RAND_bytes(&seed, 32) == 1 else { throw .crypto("libcrypto could not make random bytes") }
        return try Ed25519Key(privateKey: seed)
    }

    /// The key pair of a 32-byte private key.
    public init(privateKey: [UInt8]) throws(Ed25519Error) {
        guard privateKey.count == 32 else { throw .malformed("an Ed25519 private key is 32 bytes, not \(privateKey.count)") }
        guard let key = EVP_PKEY_new_raw_private_key(evtool_ed25519_type(), nil, privateKey, 32) else {
            throw .crypto("libcrypto refused the Ed25519 private key")
        }
        defer { EVP_PKEY_free(key) }
        var length = 32
        var publicKey = [UInt8](repeating: 0, count: 32)
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == 32 else {
            throw .crypto("libcrypto could not derive the Ed25519 public key")
        }
        self.publicKey = publicKey
        self.privateKey = privateKey
    }

    /// A public key alone.
    public init(publicKey: [UInt8]) throws(Ed25519Error) {
        guard publicKey.count == 32 else { throw .malformed("an Ed25519 public key is 32 bytes, not \(publicKey.count)") }
        self.publicKey = publicKey
        self.privateKey = nil
    }

    /// A key from a PEM file's text: a PKCS #8 `PRIVATE KEY` or a `PUBLIC KEY`, Ed25519 only,
    /// its lines joined in canonical base64 (``CanonicalText/base64(_:)``).
    /// - Throws: ``Ed25519Error/malformed(_:)`` naming what is wrong.
    public init(pem text: String) throws(Ed25519Error) {
        let lines = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        guard let begin = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN ") }),
              let end = lines.firstIndex(where: { $0.hasPrefix("-----END ") }), begin < end else {
            throw .malformed("not a PEM file (no BEGIN and END lines)")
        }
        guard let der = CanonicalText.base64(lines[(begin + 1)..<end].joined()) else {
            throw .malformed("the PEM file's base64 is damaged or not canonical (another text than its writer's for the key)")
        }
        switch lines[begin] {
        case "-----BEGIN PRIVATE KEY-----":
            guard der.count == 48, Array(der.prefix(16)) == Self.privatePrefix else {
                throw .malformed("the private key is not an Ed25519 key (evtool keys create makes one)")
            }
            try self.init(privateKey: Array(der.suffix(32)))
        case "-----BEGIN PUBLIC KEY-----":
            guard der.count == 44, Array(der.prefix(12)) == Self.publicPrefix else {
                throw .malformed("the public key is not an Ed25519 key (evtool keys create makes one)")
            }
            try self.init(publicKey: Array(der.suffix(32)))
        default:
            throw .malformed("the PEM file holds '\(lines[begin])', not an Ed25519 PRIVATE KEY or PUBLIC KEY")
        }
    }

    /// The private key as a PKCS #8 PEM file; nil for a public key alone.
    public var privatePEM: String? {
        privateKey.map { Self.pem("PRIVATE KEY", Self.privatePrefix + $0) }
    }

    /// The public key as a SubjectPublicKeyInfo PEM file.
    public var publicPEM: String { Self.pem("PUBLIC KEY", Self.publicPrefix + publicKey) }

    /// This key without its private part.
    public var publicOnly: Ed25519Key { Ed25519Key(uncheckedPublicKey: publicKey) }

    private init(uncheckedPublicKey: [UInt8]) {
        publicKey = uncheckedPublicKey
        privateKey = nil
    }

    /// The key id of a C2SP signed note for a key named `name`: the first 4 bytes of
    /// SHA-256(name ‖ 0x0A ‖ 0x01 ‖ public key) (0x01 is Ed25519's signature type).
    public func keyID(name: String) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(name)
        hasher.update(Data([0x0A, 0x01] + publicKey))
        return Array(hasher.finalize().prefix(4))
    }

    /// The Ed25519 signature (64 bytes) of `message`.
    /// - Throws: ``Ed25519Error/noPrivateKey`` for a public key alone, or libcrypto's failure.
    public func sign(_ message: [UInt8]) throws(Ed25519Error) -> [UInt8] {
        guard let privateKey else { throw .noPrivateKey }
        guard let key = EVP_PKEY_new_raw_private_key(evtool_ed25519_type(), nil, privateKey, 32) else {
            throw .crypto("libcrypto refused the Ed25519 private key")
        }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { throw .crypto("libcrypto could not make a signing context") }
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1,
              EVP_DigestSign(context, &signature, &length, message, message.count) == 1, length == 64 else {
            throw .crypto("libcrypto could not sign with Ed25519")
        }
        return signature
    }

    /// Whether `signature` is this key's Ed25519 signature of `message`.
    public func verify(_ signature: [UInt8], of message: [UInt8]) -> Bool {
        guard signature.count == 64,
              let key = EVP_PKEY_new_raw_public_key(evtool_ed25519_type(), nil, publicKey, 32) else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        return EVP_DigestVerify(context, signature, 64, message, message.count) == 1
    }

    private static func pem(_ label: String, _ der: [UInt8]) -> String {
        "-----BEGIN \(label)-----\n\(Data(der).base64EncodedString())\n-----END \(label)-----\n"
    }
}
