import CCrypto
import Foundation

/// SHA-256 as fetched once from libcrypto (see `evtool_sha256_fetch` in the CCrypto shim).
/// Safe to share: an EVP_MD is immutable once fetched, and libcrypto's digest calls only read it.
nonisolated(unsafe) private let sha256Method = evtool_sha256_fetch()

/// Incremental SHA-256 through OpenSSL's libcrypto (EVP interface).
///
/// Not thread-safe: one hasher per computation.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new digest.
    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, sha256Method, nil) == 1 else {
            fatalError("libcrypto could not start a SHA-256 digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Starts over with an empty digest, reusing the context (cheaper than a new hasher on
    /// hot paths such as the hash chain, which takes three digests per event).
    public func reset() {
        guard EVP_DigestInit_ex(context, sha256Method, nil) == 1 else {
            fatalError("libcrypto could not restart a SHA-256 digest")
        }
    }

    /// Adds bytes to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds bytes to the digest.
    public func update(_ data: Data) { data.withUnsafeBytes { update($0) } }

    /// Adds a string's UTF-8 bytes to the digest.
    public func update(_ text: String) {
        var text = text
        text.withUTF8 { update(UnsafeRawBufferPointer($0)) }
    }

    /// Adds an integer as 8 big-endian bytes.
    public func update(_ value: Int64) {
        withUnsafeBytes(of: value.bigEndian) { update($0) }
    }

    /// Adds a length-prefixed field, so that ("ab","c") and ("a","bc") hash differently.
    public func updateField(_ data: Data) {
        update(Int64(data.count))
        update(data)
    }

    /// Adds a length-prefixed string field (its UTF-8 bytes, without copying them).
    public func updateField(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            update(Int64(bytes.count))
            update(UnsafeRawBufferPointer(bytes))
        }
    }

    /// Finishes the digest; call ``reset()`` before using the hasher again.
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// The SHA-256 of a whole buffer in one call, written to the 32 bytes at `output` (no EVP
    /// context: the fastest way for the short buffers of the hash chain).
    public static func digest(_ bytes: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer) {
        evtool_sha256(bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, bytes.count,
                      output.assumingMemoryBound(to: UInt8.self))
    }

    /// The SHA-256 of a whole buffer in one call.
    public static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: 32) { output, count in
            digest(bytes, into: UnsafeMutableRawPointer(output.baseAddress!))
            count = 32
        }
    }

    /// The SHA-256 of `data`.
    public static func digest(_ data: Data) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }
}

extension Array where Element == UInt8 {
    /// The bytes of lowercase or uppercase hexadecimal text; nil when the text is not hex.
    /// For the stores' own columns; a hash read from a file or a document someone else may
    /// have written is read with ``CanonicalText/lowercaseHex(_:)``.
    public init?(hexadecimal text: String) {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        self = bytes
    }

    /// Lowercase hexadecimal.
    public var hexString: String {
        withUnsafeBytes { bytes in
            String(unsafeUninitializedCapacity: bytes.count * 2) { out in
                guard let base = out.baseAddress else { return 0 }
                HexEncoding.encode(bytes, into: UnsafeMutableRawPointer(base))
                return bytes.count * 2
            }
        }
    }
}
