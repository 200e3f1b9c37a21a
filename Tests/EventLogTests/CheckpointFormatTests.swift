import EventLog
import Foundation
import Testing

/// Ed25519 through libcrypto, the checkpoint note and the proof document: pure, no store.
@Suite("Checkpoints: Ed25519, the signed note, proof documents")
struct CheckpointFormatTests {
    /// RFC 8032 §7.1, tests 1 and 2.
    static let vectors: [(secret: String, public: String, message: String, signature: String)] = [
        ("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
         "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
         "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"),
        ("4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
         "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
         "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"),
    ]

    @Test("Ed25519 matches the RFC 8032 test vectors; PEM round-trips; a changed message or signature fails")
    func ed25519() throws {
        for vector in Self.vectors {
            let key = try Ed25519Key(privateKey: [UInt8](hexadecimal: vector.secret) ?? [])
            #expect(key.publicKey.hexString == vector.public)
            let message = [UInt8](hexadecimal: vector.message) ?? []
            let signature = try key.sign(message)
            #expect(signature.hexString == vector.signature)
            let publicKey = try Ed25519Key(pem: key.publicPEM)
            #expect(publicKey.privateKey == nil && publicKey.publicKey == key.publicKey)
            #expect(publicKey.verify(signature, of: message))
            #expect(!publicKey.verify(signature, of: message + [0]))
            var changed = signature
            changed[10] ^= 4
            #expect(!publicKey.verify(changed, of: message))
            #expect(try Ed25519Key(pem: key.privatePEM ?? "") == key)
            #expect(throws: Ed25519Error.noPrivateKey) { try publicKey.sign(message) }
        }
        #expect(throws: Ed25519Error.self) { try Ed25519Key(pem: "-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----\n") }
        #expect(throws: Ed25519Error.self) { try Ed25519Key(pem: "hello") }
        #expect(try Ed25519Key.generate() != (try Ed25519Key.generate()))
    }

    @Test("a checkpoint signs and reads back; a changed line, another key or no signature is refused by name")
    func checkpoint() throws {
        let key = try Ed25519Key.generate()
        var checkpoint = Checkpoint(size: 42, root: MerkleHash.leaf([1, 2, 3]), time: "2026-12-01T07:40:00.000000Z")
        #expect(throws: CheckpointError.unsigned) { try checkpoint.verifySignature(key.publicOnly) }
        try checkpoint.sign(with: key)
        let text = checkpoint.text
        #expect(text.hasPrefix("evtool\n42\n\(Data(checkpoint.root).base64EncodedString())\ntime 2026-12-01T07:40:00.000000Z\n\n— evtool "))
        let read = try Checkpoint(text: text)
        #expect(read == checkpoint)
        try read.verifySignature(key.publicOnly)
        let forged = try Checkpoint(text: text.replacingOccurrences(of: "\n42\n", with: "\n41\n"))
        #expect(throws: CheckpointError.forged) { try forged.verifySignature(key.publicOnly) }
        #expect(throws: CheckpointError.self) { try read.verifySignature(try Ed25519Key.generate().publicOnly) }
        for bad in [text.replacingOccurrences(of: "\n42\n", with: "\nforty\n"), text.replacingOccurrences(of: "\n\n", with: "\n"),
                    text.replacingOccurrences(of: "time ", with: "when "), text + "— evtool short\n", ""] {
            #expect(throws: CheckpointError.self) { try Checkpoint(text: bad) }
        }
    }

    /// `text` (canonical base64) with the last character before the padding moved to the one
    /// whose unused low bit differs: another text of the same bytes.
    static func reencoded(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var characters = Array(text)
        let last = characters.lastIndex { $0 != "=" }!
        characters[last] = alphabet[alphabet.firstIndex(of: characters[last])! ^ 1]
        return String(characters)
    }

    @Test("canonical text: base64 and hex read only as evtool writes them; another text of the same bytes is nil")
    func canonicalText() {
        let root = MerkleHash.leaf([7])
        let base64 = Data(root).base64EncodedString()
        #expect(CanonicalText.base64(base64) == root)
        #expect(Data(base64Encoded: Self.reencoded(base64)).map([UInt8].init) == root, "Foundation reads the other text as the same bytes")
        for other in [Self.reencoded(base64), base64 + "=", String(base64.dropLast()), " " + base64, base64 + "\n",
                      String(base64.prefix(20)) + "\n" + String(base64.dropFirst(20)), base64.replacingOccurrences(of: "=", with: "")] {
            #expect(CanonicalText.base64(other) == nil, "\(other)")
        }
        #expect(CanonicalText.base64("") == [])
        #expect(CanonicalText.lowercaseHex(root.hexString) == root)
        #expect([UInt8](hexadecimal: root.hexString.uppercased()) == root, "the stores' lenient reader takes either case")
        for other in [root.hexString.uppercased(), "A" + root.hexString.dropFirst(), root.hexString + "0", "0x" + root.hexString.dropFirst(2), "g" + root.hexString.dropFirst()] {
            #expect(CanonicalText.lowercaseHex(other) == nil, "\(other)")
        }
    }

    @Test("a checkpoint is read strictly and kept byte for byte: another base64 text of its root or signature, a CR, a missing or extra line feed is refused by line; the signature covers the bytes read")
    func checkpointTextIsExact() throws {
        let key = try Ed25519Key.generate()
        var checkpoint = Checkpoint(size: 42, root: MerkleHash.leaf([1, 2, 3]), time: "2026-12-01T07:40:00.000000Z")
        try checkpoint.sign(with: key)
        let text = checkpoint.text
        let read = try Checkpoint(note: Array(text.utf8))
        #expect(read.note == Array(text.utf8) && read.text == text && read.body == checkpoint.body)
        try read.verifySignature(key.publicOnly)
        let unsigned = Checkpoint(size: 0, root: MerkleHash.empty, time: "2026-12-01T07:40:00.000000Z")
        #expect(try Checkpoint(text: unsigned.text) == unsigned)

        let rootText = Data(checkpoint.root).base64EncodedString()
        let signatureText = String(text.split(separator: " ").last!.dropLast())
        let cases: [(String, String)] = [
            (text.replacingOccurrences(of: rootText, with: Self.reencoded(rootText)), "line 3: "),
            (text.replacingOccurrences(of: rootText, with: rootText + "="), "line 3: "),
            (text.replacingOccurrences(of: signatureText, with: Self.reencoded(signatureText)), "signature line 1: "),
            (text.replacingOccurrences(of: signatureText, with: signatureText + "="), "signature line 1: "),
            (text + "\n", "signature line 2 is empty"),
            (String(text.dropLast()), "does not end with a line feed"),
            (text.replacingOccurrences(of: "\n", with: "\r\n"), "line 1 holds the control character 0xD"),
            (text.replacingOccurrences(of: "time 2026-12-01T07:40:00.000000Z", with: "time 2026-11-31T07:40:00.000000Z"), "line 4: "),
            (unsigned.text + "\n", "signature line 1 is empty"),
        ]
        for (bad, reason) in cases {
            #expect(bad != text)
            do {
                _ = try Checkpoint(text: bad)
                Issue.record("read: \(bad)")
            } catch {
                #expect(error.description.contains(reason), "\(bad): \(error)")
            }
        }
        var invalid = Array(text.utf8)
        invalid[1] = 0xFF
        #expect(throws: CheckpointError.malformed("the text is not valid UTF-8")) { try Checkpoint(note: invalid) }
        // The signature is checked over the body's bytes as read: an origin in another Unicode
        // form (a Swift String equal to the signed one) is another body.
        var accented = Checkpoint(origin: "\u{E9}vtool", size: 1, root: MerkleHash.leaf([1]), time: "2026-12-01T07:40:00.000000Z")
        try accented.sign(with: key)
        var bytes = Array(accented.note)
        bytes.replaceSubrange(0..<2, with: [0x65, 0xCC, 0x81])   // U+00E9 → "e" and U+0301
        let decomposed = try Checkpoint(note: bytes)
        #expect(decomposed.origin == accented.origin, "String equality is canonical equivalence")
        #expect(decomposed.note != accented.note)
        #expect(throws: CheckpointError.forged) { try decomposed.verifySignature(key.publicOnly) }
        try Checkpoint(text: accented.text).verifySignature(key.publicOnly)
    }

    @Test("a PEM key whose base64 is another text of the same key is refused")
    func keyTextIsCanonical() throws {
        let key = try Ed25519Key.generate()
        let lines = key.publicPEM.split(separator: "\n").map(String.init)
        let other = [lines[0], Self.reencoded(lines[1]), lines[2]].joined(separator: "\n") + "\n"
        #expect(other != key.publicPEM)
        #expect(throws: Ed25519Error.self) { try Ed25519Key(pem: other) }
        #expect(try Ed25519Key(pem: key.publicPEM) == key.publicOnly)
    }

    @Test("proof documents round-trip and refuse damaged lines")
    func proofDocuments() throws {
        let path = [MerkleHash.leaf([1]), MerkleHash.leaf([2])]
        let inclusion = ProofDocument.inclusion(index: 3, size: 9, event: UUID(), entry: MerkleHash.leaf([0]), previous: EventChain.genesis, path: path)
        #expect(try ProofDocument(text: inclusion.text) == inclusion)
        let consistency = ProofDocument.consistency(from: 3, to: 9, path: path)
        #expect(try ProofDocument(text: consistency.text) == consistency)
        for bad in [consistency.text.replacingOccurrences(of: "from 3", with: "from x"), consistency.text + "AAAA\n",
                    inclusion.text.replacingOccurrences(of: "event ", with: "evnt "), inclusion.text.replacingOccurrences(of: "previous ", with: "prev "), "evtool other proof\n",
                    // Another text of the same hashes: upper-case hex, other base64.
                    inclusion.text.replacingOccurrences(of: MerkleHash.leaf([0]).hexString, with: MerkleHash.leaf([0]).hexString.uppercased()),
                    inclusion.text.replacingOccurrences(of: Data(path[1]).base64EncodedString(), with: Self.reencoded(Data(path[1]).base64EncodedString())),
                    consistency.text.replacingOccurrences(of: Data(path[0]).base64EncodedString(), with: Data(path[0]).base64EncodedString() + "=")] {
            #expect(throws: MerkleProofError.self) { try ProofDocument(text: bad) }
        }
    }
}
