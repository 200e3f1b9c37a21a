import EventLog
import Foundation
import Testing

/// The one SHA-256 of the package (libcrypto's, through ``SHA256Hasher``): the hash chain,
/// the seals and the request-derived event ids all rest on it.
@Suite("SHA-256")
struct SHA256Tests {
    /// FIPS 180-4 test vectors (and the million-byte one cut to 1,000 bytes).
    static let vectors: [(message: [UInt8], digest: String)] = [
        (Array("".utf8), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        (Array("abc".utf8), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8),
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
        (Array(repeating: UInt8(ascii: "a"), count: 1_000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
    ]

    @Test("every way into SHA256Hasher matches the FIPS 180-4 test vectors")
    func vectors() {
        for (message, digest) in Self.vectors {
            #expect(message.withUnsafeBytes { SHA256Hasher.digest($0) }.hexString == digest)
            #expect(SHA256Hasher.digest(Data(message)).hexString == digest)
            // Incrementally, in uneven pieces, and again after a reset.
            let hasher = SHA256Hasher()
            hasher.update(Data("left over".utf8))
            hasher.reset()
            var offset = 0, piece = 1
            while offset < message.count {
                let end = min(message.count, offset + piece)
                hasher.update(Data(message[offset..<end]))
                offset = end
                piece = piece * 3 + 1
            }
            #expect(hasher.finalize().hexString == digest)
        }
    }
}
