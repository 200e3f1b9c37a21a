import Foundation

/// The tamper-evident hash chain: one chain per stream, so writers of different streams
/// never wait on each other. This is the ONE definition every store, `evtool verify` and the
/// tests use; PostgreSQL computes the same bytes in SQL (see docs/explanation/audit.md).
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

    /// Computes chain hashes with one reused libcrypto context and one reused message buffer
    /// (the chain fields are laid out in memory and hashed with one update: libcrypto's
    /// per-call overhead would otherwise cost more than the hashing). Not thread-safe: one per
    /// thread.
    public final class Hasher {
        /// The chain message being laid out: `length` bytes of `capacity`.
        private var buffer: UnsafeMutableRawPointer
        private var capacity = 1_024
        private var length = 0
        /// The tag's bytes at the start of `buffer`, written once.
        private let tagLength: Int
        private static let tagBytes = Array(EventChain.tag.utf8)
        private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

        /// Makes a hasher. The tag starts every message: it is written once, here, and kept.
        public init() {
            let start = UnsafeMutableRawPointer.allocate(byteCount: 1_024, alignment: 8)
            Self.tagBytes.withUnsafeBytes { start.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            buffer = start
            tagLength = Self.tagBytes.count
        }

        deinit { buffer.deallocate() }

        /// The SHA-256 of some bytes (32 raw bytes).
        public func digest(_ bytes: Data) -> [UInt8] {
            bytes.withUnsafeBytes { SHA256Hasher.digest($0) }
        }

        /// The SHA-256 of some bytes (32 raw bytes).
        public func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
            SHA256Hasher.digest(bytes)
        }

        /// The hash of one event (32 raw bytes), from its payloads.
        public func hash(
            previous: [UInt8], stream: String, version: Int64, id: UUID, type: String,
            recordedAt: String, data: Data, metadata: Data
        ) -> [UInt8] {
            // The payloads' digests are computed straight into the message (no array for each).
            var (stream, type, recordedAt) = (stream, type, recordedAt)
            return [UInt8](unsafeUninitializedCapacity: 32) { output, count in
                previous.withUnsafeBytes { previousBytes in
                    stream.withUTF8 { streamBytes in
                        type.withUTF8 { typeBytes in
                            recordedAt.withUTF8 { timeBytes in
                                data.withUnsafeBytes { dataBytes in
                                    metadata.withUnsafeBytes { metadataBytes in
                                        hash(previous: previousBytes, stream: UnsafeRawBufferPointer(streamBytes), version: version, id: id,
                                             type: UnsafeRawBufferPointer(typeBytes), recordedAt: UnsafeRawBufferPointer(timeBytes),
                                             data: dataBytes, metadata: metadataBytes, into: UnsafeMutableRawPointer(output.baseAddress!))
                                    }
                                }
                            }
                        }
                    }
                }
                count = 32
            }
        }

        /// The hash of one event, from its payloads' bytes, written as 32 raw bytes to `output`:
        /// no allocation, for the append's loop. `output` may be where `previous` is (the
        /// message holds its own copy of `previous` before the hash is written).
        public func hash(
            previous: UnsafeRawBufferPointer, stream: UnsafeRawBufferPointer, version: Int64, id: UUID,
            type: UnsafeRawBufferPointer, recordedAt: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer,
            metadata: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer
        ) {
            layOut(previous: previous, stream: stream, version: version, id: id, type: type, recordedAt: recordedAt)
            digestField(data)
            digestField(metadata)
            SHA256Hasher.digest(UnsafeRawBufferPointer(start: buffer, count: length), into: output)
        }

        /// The hash of one event (32 raw bytes), from its payloads' digests (what verify uses for
        /// an erased event, whose digests the store kept).
        public func hash(
            previous: [UInt8], stream: String, version: Int64, id: UUID, type: String,
            recordedAt: String, dataSHA256: [UInt8], metadataSHA256: [UInt8]
        ) -> [UInt8] {
            var (stream, type, recordedAt) = (stream, type, recordedAt)
            return [UInt8](unsafeUninitializedCapacity: 32) { output, count in
                previous.withUnsafeBytes { previousBytes in
                    stream.withUTF8 { streamBytes in
                        type.withUTF8 { typeBytes in
                            recordedAt.withUTF8 { timeBytes in
                                dataSHA256.withUnsafeBytes { dataBytes in
                                    metadataSHA256.withUnsafeBytes { metadataBytes in
                                        hash(previous: previousBytes, stream: UnsafeRawBufferPointer(streamBytes), version: version, id: id,
                                             type: UnsafeRawBufferPointer(typeBytes), recordedAt: UnsafeRawBufferPointer(timeBytes),
                                             dataSHA256: dataBytes, metadataSHA256: metadataBytes, into: UnsafeMutableRawPointer(output.baseAddress!))
                                    }
                                }
                            }
                        }
                    }
                }
                count = 32
            }
        }

        /// The hash of one event from its payloads' digests (32 raw bytes each), written as 32
        /// raw bytes to `output`: an event copied erased (``ProposedEvent/erasure``) in the
        /// append's loop. `output` may be where `previous` is.
        public func hash(
            previous: UnsafeRawBufferPointer, stream: UnsafeRawBufferPointer, version: Int64, id: UUID,
            type: UnsafeRawBufferPointer, recordedAt: UnsafeRawBufferPointer, dataSHA256: UnsafeRawBufferPointer,
            metadataSHA256: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer
        ) {
            layOut(previous: previous, stream: stream, version: version, id: id, type: type, recordedAt: recordedAt)
            field(dataSHA256)
            field(metadataSHA256)
            SHA256Hasher.digest(UnsafeRawBufferPointer(start: buffer, count: length), into: output)
        }

        /// The message up to the payloads' digests: the tag (kept), the previous hash, the
        /// stream, version, id, type and time.
        private func layOut(previous: UnsafeRawBufferPointer, stream: UnsafeRawBufferPointer, version: Int64, id: UUID,
                            type: UnsafeRawBufferPointer, recordedAt: UnsafeRawBufferPointer) {
            length = tagLength
            put(previous)
            field(stream)
            integer(version)
            uuidField(id)
            field(type)
            field(recordedAt)
        }

        /// The hash of one event (32 raw bytes) from the bytes a store holds: the event id as
        /// lowercase text and the recording time in ``Timestamp/format(_:)`` form.
        public func hash(
            previous: UnsafeRawBufferPointer, stream: UnsafeRawBufferPointer, version: Int64, idText: UnsafeRawBufferPointer,
            type: UnsafeRawBufferPointer, recordedAtText: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer, metadata: UnsafeRawBufferPointer
        ) -> [UInt8] {
            length = tagLength
            put(previous)
            field(stream)
            integer(version)
            field(idText)
            field(type)
            field(recordedAtText)
            digestField(data)
            digestField(metadata)
            return finish()
        }

        private func reserve(_ extra: Int) {
            guard length + extra > capacity else { return }
            let grown = UnsafeMutableRawPointer.allocate(byteCount: max(capacity * 2, length + extra), alignment: 8)
            grown.copyMemory(from: buffer, byteCount: length)
            buffer.deallocate()
            buffer = grown
            capacity = max(capacity * 2, length + extra)
        }

        private func put(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            reserve(bytes.count)
            (buffer + length).copyMemory(from: base, byteCount: bytes.count)
            length += bytes.count
        }

        private func integer(_ value: Int64) {
            reserve(8)
            buffer.storeBytes(of: value.bigEndian, toByteOffset: length, as: Int64.self)
            length += 8
        }

        private func field(_ bytes: UnsafeRawBufferPointer) {
            integer(Int64(bytes.count))
            put(bytes)
        }

        /// The id as 36 characters of lowercase text, written without making a String.
        private func uuidField(_ id: UUID) {
            integer(36)
            reserve(36)
            let out = buffer + length
            var offset = 0
            Self.hexDigits.withUnsafeBufferPointer { digits in
                withUnsafeBytes(of: id.uuid) { bytes in
                    for index in 0..<16 {
                        if index == 4 || index == 6 || index == 8 || index == 10 {
                            out.storeBytes(of: UInt8(ascii: "-"), toByteOffset: offset, as: UInt8.self)
                            offset += 1
                        }
                        let byte = bytes[index]
                        out.storeBytes(of: digits[Int(byte >> 4)], toByteOffset: offset, as: UInt8.self)
                        out.storeBytes(of: digits[Int(byte & 0x0F)], toByteOffset: offset + 1, as: UInt8.self)
                        offset += 2
                    }
                }
            }
            length += 36
        }

        /// A length-prefixed field holding the SHA-256 of `bytes`, hashed straight into the message.
        private func digestField(_ bytes: UnsafeRawBufferPointer) {
            integer(32)
            reserve(32)
            SHA256Hasher.digest(bytes, into: buffer + length)
            length += 32
        }

        private func finish() -> [UInt8] {
            SHA256Hasher.digest(UnsafeRawBufferPointer(start: buffer, count: length))
        }
    }
}
