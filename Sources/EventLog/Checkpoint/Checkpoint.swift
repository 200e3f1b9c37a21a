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
/// The signature covers the body (the first four lines with their newlines), as the note's
/// bytes have it: a checkpoint read from text keeps that text (``note``), and its signatures are
/// checked over those bytes, never over a text made again from the fields. The text is read
/// strictly: every hash and signature in the one canonical base64 evtool writes, no byte that
/// is not part of the grammar, so two texts never read as the same checkpoint. An unsigned
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
    public let origin: String
    /// The number of events the tree covers (the first `size` events in position order).
    public let size: UInt64
    /// The tree's root (RFC 9162 MTH over the events' chain hashes).
    public let root: [UInt8]
    /// When it was made, in ``Timestamp/format(_:)`` form.
    public let time: String
    /// The signatures, in the order of their lines.
    public private(set) var signatures: [Signature]
    /// The whole note's bytes: as read (``init(note:)``), or as made (the body, a blank line,
    /// then one line per signature).
    public private(set) var note: [UInt8]
    /// How many of ``note``'s first bytes are the body: what a signature covers.
    private let bodyCount: Int

    /// An unsigned checkpoint.
    public init(origin: String = "evtool", size: UInt64, root: [UInt8], time: String) {
        self.origin = origin
        self.size = size
        self.root = root
        self.time = time
        signatures = []
        note = Array("\(origin)\n\(size)\n\(Data(root).base64EncodedString())\ntime \(time)\n".utf8)
        bodyCount = note.count
        note.append(0x0A)
    }

    /// The signed text: origin, size, base64 root and time, one a line, as the note has it.
    public var body: String { String(decoding: note[..<bodyCount], as: UTF8.self) }

    /// The whole note: the body, a blank line, then one line per signature (as read, or as made).
    public var text: String { String(decoding: note, as: UTF8.self) }

    /// The hex key id of `key` as signature lines name it.
    public static func keyID(of key: Ed25519Key) -> String { key.keyID(name: keyName).hexString }

    /// Adds `key`'s signature over the body, as one more line of the note.
    public mutating func sign(with key: Ed25519Key) throws(Ed25519Error) {
        let signature = try key.sign(Array(note[..<bodyCount]))
        let line = Signature(keyName: Self.keyName, keyID: key.keyID(name: Self.keyName), signature: signature)
        signatures.append(line)
        note += Array("— \(line.keyName) \(Data(line.keyID + line.signature).base64EncodedString())\n".utf8)
    }

    /// Checks that a signature line is `key`'s, over the body's bytes as the note has them.
    /// - Throws: ``CheckpointError/unsigned`` when it has no signature at all,
    ///   ``CheckpointError/otherKey(_:)`` when no line is by `key`, ``CheckpointError/forged``
    ///   when `key`'s line does not verify (the body or the signature was changed).
    public func verifySignature(_ key: Ed25519Key) throws(CheckpointError) {
        guard !signatures.isEmpty else { throw .unsigned }
        let id = key.keyID(name: Self.keyName)
        guard let line = signatures.first(where: { $0.keyName == Self.keyName && $0.keyID == id }) else {
            throw .otherKey(signatures.map { $0.keyID.hexString })
        }
        guard key.verify(line.signature, of: Array(note[..<bodyCount])) else { throw .forged }
    }

    /// Reads a checkpoint's text (its UTF-8 bytes: ``init(note:)``).
    /// - Throws: ``CheckpointError/malformed(_:)`` naming the line that is wrong.
    public init(text: String) throws(CheckpointError) {
        try self.init(note: Array(text.utf8))
    }

    /// Reads a checkpoint's note, byte for byte: valid UTF-8 with no control character but the
    /// line feed; four body lines (an origin, a tree size in decimal without leading zeros, the
    /// root in canonical base64 (``CanonicalText/base64(_:)``), `time` and a timestamp in
    /// ``Timestamp/format(_:)`` form), a blank line, then signature lines `— NAME BASE64` (a
    /// 4-byte key id and a 64-byte signature, canonical base64), each ending with a line feed,
    /// and nothing after them. The bytes are kept (``note``): a signature is checked over them.
    /// - Throws: ``CheckpointError/malformed(_:)`` naming the line that is wrong.
    public init(note bytes: [UInt8]) throws(CheckpointError) {
        guard String(validating: bytes, as: UTF8.self) != nil else { throw .malformed("the text is not valid UTF-8") }
        if let control = bytes.firstIndex(where: { $0 < 0x20 && $0 != 0x0A }) {
            let line = bytes[..<control].filter { $0 == 0x0A }.count + 1
            throw .malformed("line \(line) holds the control character 0x\(String(bytes[control], radix: 16, uppercase: true)) (a note has none but the line feed ending each line)")
        }
        guard let split = bytes.indices.dropLast().first(where: { bytes[$0] == 0x0A && bytes[$0 + 1] == 0x0A }) else {
            throw .malformed("no blank line after the checkpoint's body")
        }
        let bodyLines = bytes[..<split].split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard bodyLines.count == 4 else { throw .malformed("the body has \(bodyLines.count) lines, not 4 (origin, size, root, time)") }
        guard !bodyLines[0].isEmpty else { throw .malformed("line 1: no origin") }
        guard let size = UInt64(bodyLines[1]), String(size) == bodyLines[1] else {
            throw .malformed("line 2: '\(bodyLines[1])' is not a tree size")
        }
        guard let root = CanonicalText.base64(bodyLines[2]), root.count == MerkleHash.size else {
            throw .malformed("line 3: '\(bodyLines[2])' is not a SHA-256 root hash in canonical base64 (44 characters ending in one '=', as evtool writes it)")
        }
        let timeLine = Array(bodyLines[3].utf8), timeText = String(decoding: timeLine.dropFirst(5), as: UTF8.self)
        guard timeLine.starts(with: Array("time ".utf8)), let time = Timestamp.parse(timeText), Timestamp.format(time) == timeText else {
            throw .malformed("line 4: '\(bodyLines[3])' is not 'time' and a timestamp like 2026-12-01T07:40:00.000000Z")
        }
        let signatureBytes = bytes[(split + 2)...]
        var signatures: [Signature] = []
        if !signatureBytes.isEmpty {
            guard signatureBytes.last == 0x0A else { throw .malformed("the last signature line does not end with a line feed") }
            for (offset, line) in signatureBytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
                let number = offset + 1
                guard !line.isEmpty else {
                    throw .malformed("signature line \(number) is empty (nothing follows a note's signature lines, not even a blank line)")
                }
                let fields = line.split(separator: 0x20, omittingEmptySubsequences: false)
                guard fields.count == 3, fields[0].elementsEqual("—".utf8), !fields[1].isEmpty,
                      let bytes = CanonicalText.base64(String(decoding: fields[2], as: UTF8.self)), bytes.count == 68 else {
                    throw .malformed("signature line \(number): not '— NAME BASE64' with a 4-byte key id and a 64-byte Ed25519 signature in canonical base64")
                }
                signatures.append(Signature(keyName: String(decoding: fields[1], as: UTF8.self), keyID: Array(bytes.prefix(4)), signature: Array(bytes.suffix(64))))
            }
        }
        self.origin = bodyLines[0]
        self.size = size
        self.root = root
        self.time = timeText
        self.signatures = signatures
        self.note = bytes
        self.bodyCount = split + 1
    }
}
