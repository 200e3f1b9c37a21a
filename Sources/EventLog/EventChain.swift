import Foundation

/// The tamper-evident hash chain: one chain per stream, so writers of different streams
/// never wait on each other. This is the ONE definition every store, `evtool verify` and the
/// tests use; PostgreSQL computes the same bytes in SQL (see docs/AUDIT.md).
///
/// An event's hash is the lowercase hex SHA-256 of:
///
/// 1. the ASCII tag `evtool-chain-v1`;
/// 2. the previous event's hash in the same stream as 32 raw bytes (32 zero bytes for
///    version 1);
/// 3. length-prefixed fields (8-byte big-endian length, then the bytes; integers as 8-byte
///    big-endian with no length): the stream id (UTF-8), the version, the event id
///    (lowercase text), the type, the recording time in ``Timestamp/format(_:)`` form, the
///    SHA-256 of the data bytes (32 raw bytes) and the SHA-256 of the metadata bytes.
///
/// Hashing the payloads' digests rather than the payloads is what lets an erasure remove a
/// payload and keep its digest, so the chain still verifies.
public enum EventChain {
    /// The version tag that starts every event hash.
    public static let tag = "evtool-chain-v1"
    /// The tag that starts every seal hash.
    public static let sealTag = "evtool-seal-v1"
    /// The "previous hash" of a stream's first event: 32 zero bytes.
    public static let genesis = [UInt8](repeating: 0, count: 32)

    /// The hash of one event (hex), from its payloads.
    ///
    /// Cost: three SHA-256 digests over the event's bytes. Use a ``Hasher`` on hot paths.
    public static func hash(
        previous: [UInt8], stream: String, version: Int64, id: UUID, type: String,
        recordedAt: String, data: Data, metadata: Data
    ) -> String {
        Hasher().hash(previous: previous, stream: stream, version: version, id: id, type: type,
                      recordedAt: recordedAt, data: data, metadata: metadata).hexString
    }

    /// The hash of a seal (hex): see ``Seal``.
    public static func sealHash(
        previous: [UInt8], position: Int64, events: Int64, streams: Int64, headsSHA256: [UInt8], sealedAt: String
    ) -> String {
        let hasher = SHA256Hasher()
        hasher.update(sealTag)
        hasher.update(Data(previous))
        hasher.update(position)
        hasher.update(events)
        hasher.update(streams)
        hasher.updateField(Data(headsSHA256))
        hasher.updateField(sealedAt)
        return hasher.finalize().hexString
    }

    /// Computes chain hashes with one reused libcrypto context. Not thread-safe: one per thread.
    public final class Hasher {
        private let sha = SHA256Hasher()

        /// Makes a hasher.
        public init() {}

        /// The SHA-256 of some bytes (32 raw bytes).
        public func digest(_ bytes: Data) -> [UInt8] {
            sha.reset()
            sha.update(bytes)
            return sha.finalize()
        }

        /// The hash of one event (32 raw bytes), from its payloads.
        public func hash(
            previous: [UInt8], stream: String, version: Int64, id: UUID, type: String,
            recordedAt: String, data: Data, metadata: Data
        ) -> [UInt8] {
            let dataDigest = digest(data)
            let metadataDigest = digest(metadata)
            return hash(previous: previous, stream: stream, version: version, id: id, type: type,
                        recordedAt: recordedAt, dataSHA256: dataDigest, metadataSHA256: metadataDigest)
        }

        /// The hash of one event (32 raw bytes), from its payloads' digests (what verify uses for
        /// an erased event, whose digests the store kept).
        public func hash(
            previous: [UInt8], stream: String, version: Int64, id: UUID, type: String,
            recordedAt: String, dataSHA256: [UInt8], metadataSHA256: [UInt8]
        ) -> [UInt8] {
            sha.reset()
            sha.update(EventChain.tag)
            previous.withUnsafeBytes { sha.update($0) }
            sha.updateField(stream)
            sha.update(version)
            sha.updateField(id.lowercaseString)
            sha.updateField(type)
            sha.updateField(recordedAt)
            sha.update(Int64(32))
            dataSHA256.withUnsafeBytes { sha.update($0) }
            sha.update(Int64(32))
            metadataSHA256.withUnsafeBytes { sha.update($0) }
            return sha.finalize()
        }
    }
}
