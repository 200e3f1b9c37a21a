import Foundation

/// A signed statement of the log's Merkle tree at one size, meant to be published: held
/// outside the store, it lets anyone check later that the store's log still extends it (a
/// consistency proof) and that one event is in it (an inclusion proof). See docs/explanation/audit.md.
///
/// Its text is a C2SP signed note (c2sp.org/signed-note) whose body follows C2SP's checkpoint
/// (c2sp.org/tlog-checkpoint) with one extension line for the time:
///
///     evtool
///     1234
///     <root hash, base64>
///     time 2026-12-01T07:40:00.000Z
///
///     — evtool <base64 of key id (4 bytes) ‖ Ed25519 signature (64 bytes)>
///
/// The signature covers the body (the first four lines with their newlines). An unsigned
/// checkpoint has no signature lines.
public struct Checkpoint: Sendable, Hashable {
    /// One signature line.
    public struct Signature: Sendable, Hashable {
        /// The key's name (``Checkpoint/keyName`` for evtool's keys).
        public var keyName: String
        /// The first 4 bytes of the key's hash (``Ed25519Key/keyID(name:)``).
        public var keyID: [UInt8]
        /// The 64-byte Ed25519 signature over the body.
        public var signature: [UInt8]
    }

    /// The name evtool gives its keys in signature lines.
    public static let keyName = "evtool"

    /// Which log this is (the first line).
    public var origin: String
    /// The number of events the tree covers (the first `size` events in position order).
    public var size: UInt64
    /// The tree's root (RFC 9162 MTH over the events' chain hashes).
    public var root: [UInt8]
    /// When it was made, in ``Timestamp/format(_:)`` form.
    public var time: String
    /// The signatures, in the order of their lines.
    public var signatures: [Signature]

    /// An unsigned checkpoint.
    public init(origin: String = "evtool", size: UInt64, root: [UInt8], time: String, signatures: [Signature] = []) {
        self.origin = origin
        self.size = size
        self.root = root
        self.time = time
        self.signatures = signatures
    }

    /// The signed text: origin, size, base64 root and time, one a line.
    public var body: String {
        "\(origin)\n\(size)\n\(Data(root).base64EncodedString())\ntime \(time)\n"
    }

    /// The whole note: the body, a blank line, then one line per signature.
    public var text: String {
        body + "\n" + signatures.map { "— \($0.keyName) \(Data($0.keyID + $0.signature).base64EncodedString())\n" }.joined()
    }

    /// The hex key id of `key` as signature lines name it.
    public static func keyID(of key: Ed25519Key) -> String { key.keyID(name: keyName).hexString }

    /// Adds `key`'s signature over the body.
    public mutating func sign(with key: Ed25519Key) throws(Ed25519Error) {
        let signature = try key.sign(Array(body.utf8))
        signatures.append(Signature(keyName: Self.keyName, keyID: key.keyID(name: Self.keyName), signature: signature))
    }

    /// Checks that a signature line is `key`'s, over this body.
    /// - Throws: ``CheckpointError/unsigned`` when it has no signature at all,
    ///   ``CheckpointError/otherKey(_:)`` when no line is by `key`, ``CheckpointError/forged``
    ///   when `key`'s line does not verify (the body or the signature was changed).
    public func verifySignature(_ key: Ed25519Key) throws(CheckpointError) {
        guard !signatures.isEmpty else { throw .unsigned }
        let id = key.keyID(name: Self.keyName)
        guard let line = signatures.first(where: { $0.keyName == Self.keyName && $0.keyID == id }) else {
            throw .otherKey(signatures.map { $0.keyID.hexString })
        }
        guard key.verify(line.signature, of: Array(body.utf8)) else { throw .forged }
    }

    /// Reads a checkpoint's text.
    /// - Throws: ``CheckpointError/malformed(_:)`` naming the line that is wrong.
    public init(text: String) throws(CheckpointError) {
        guard let split = text.range(of: "\n\n") else { throw .malformed("no blank line after the checkpoint's body") }
        let bodyLines = text[..<split.lowerBound].split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard bodyLines.count == 4 else { throw .malformed("the body has \(bodyLines.count) lines, not 4 (origin, size, root, time)") }
        guard !bodyLines[0].isEmpty else { throw .malformed("line 1: no origin") }
        guard let size = UInt64(bodyLines[1]), String(size) == bodyLines[1] else {
            throw .malformed("line 2: '\(bodyLines[1])' is not a tree size")
        }
        guard let root = Data(base64Encoded: bodyLines[2]), root.count == MerkleHash.size else {
            throw .malformed("line 3: '\(bodyLines[2])' is not a base64 SHA-256 root hash")
        }
        guard bodyLines[3].hasPrefix("time "), Timestamp.parse(String(bodyLines[3].dropFirst(5))) != nil else {
            throw .malformed("line 4: '\(bodyLines[3])' is not 'time' and a timestamp")
        }
        var signatures: [Signature] = []
        for (offset, line) in text[split.upperBound...].split(separator: "\n").enumerated() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count == 3, fields[0] == "—", !fields[1].isEmpty, let bytes = Data(base64Encoded: String(fields[2])),
                  bytes.count == 68 else {
                throw .malformed("signature line \(offset + 1): not '— NAME BASE64' with a 4-byte key id and a 64-byte Ed25519 signature")
            }
            signatures.append(Signature(keyName: String(fields[1]), keyID: Array(bytes.prefix(4)), signature: Array(bytes.suffix(64))))
        }
        self.init(origin: bodyLines[0], size: size, root: [UInt8](root), time: String(bodyLines[3].dropFirst(5)), signatures: signatures)
    }
}
