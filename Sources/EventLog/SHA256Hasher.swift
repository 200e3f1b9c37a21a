import CCrypto
import Foundation

/// Incremental SHA-256 through OpenSSL's libcrypto (EVP interface).
///
/// Not thread-safe: one hasher per computation.
public final class SHA256Hasher {
    private let context: OpaquePointer

    /// Starts a new digest.
    public init() {
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto could not start a SHA-256 digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

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

    /// Adds a length-prefixed string field.
    public func updateField(_ text: String) { updateField(Data(text.utf8)) }

    /// Finishes the digest (the hasher cannot be used afterwards).
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return digest
    }

    /// The SHA-256 of `data`.
    public static func digest(_ data: Data) -> [UInt8] {
        let hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }
}

extension Array where Element == UInt8 {
    /// Lowercase hexadecimal.
    public var hexString: String {
        let digits = Array("0123456789abcdef".utf8)
        return String(unsafeUninitializedCapacity: count * 2) { out in
            for (index, byte) in enumerated() {
                out[index * 2] = digits[Int(byte >> 4)]
                out[index * 2 + 1] = digits[Int(byte & 0x0F)]
            }
            return count * 2
        }
    }
}
