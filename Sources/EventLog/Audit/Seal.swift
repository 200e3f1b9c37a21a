import Foundation

/// A digest over every stream's head as of one position of the log, chained to the seal
/// before it: catches what per-stream chains cannot (a whole stream deleted, the log
/// truncated, the last events of a stream removed) for everything up to its position.
///
/// `hash` is the hex SHA-256 of the tag `evtool-seal-v1`, the previous seal's hash (32 raw
/// bytes; zeros for the first), position, events and streams (8-byte big-endian each), then
/// `headsSHA256` and `sealedAt` as length-prefixed fields (see ``EventChain/sealHash``).
public struct Seal: Sendable, Hashable {
    /// 1, 2, 3 … in the order seals were added.
    public var number: Int64
    /// The log as of this position (inclusive).
    public var position: Int64
    /// Events at positions up to ``position``.
    public var events: Int64
    /// Streams with events at positions up to ``position``.
    public var streams: Int64
    /// Hex SHA-256 over every stream's head, see ``EventChain/headsDigest(_:)``.
    public var headsSHA256: String
    /// The previous seal's hash (64 zeros for the first seal).
    public var previousHash: String
    /// This seal's hash.
    public var hash: String
    /// When it was sealed, in ``Timestamp/format(_:)`` form.
    public var sealedAt: String

    /// Makes a seal as a store read it.
    public init(number: Int64, position: Int64, events: Int64, streams: Int64, headsSHA256: String,
                previousHash: String, hash: String, sealedAt: String) {
        self.number = number
        self.position = position
        self.events = events
        self.streams = streams
        self.headsSHA256 = headsSHA256
        self.previousHash = previousHash
        self.hash = hash
        self.sealedAt = sealedAt
    }

    /// The seal that follows `previous` (nil for the first) over the given heads.
    public static func make(after previous: Seal?, position: Int64, events: Int64, heads: StreamHeads, sealedAt: Date = Date()) -> Seal {
        let previousHash = previous?.hash ?? String(repeating: "0", count: 64)
        let headsSHA256 = heads.digest().hexString
        let time = Timestamp.format(sealedAt)
        let hash = EventChain.sealHash(
            previous: [UInt8](hexadecimal: previousHash) ?? EventChain.genesis, position: position, events: events,
            streams: Int64(heads.count), headsSHA256: [UInt8](hexadecimal: headsSHA256) ?? [], sealedAt: time)
        return Seal(number: (previous?.number ?? 0) + 1, position: position, events: events, streams: Int64(heads.count),
                    headsSHA256: headsSHA256, previousHash: previousHash, hash: hash, sealedAt: time)
    }

    /// This seal's hash recomputed from its fields.
    public var recomputedHash: String {
        EventChain.sealHash(
            previous: [UInt8](hexadecimal: previousHash) ?? [], position: position, events: events, streams: streams,
            headsSHA256: [UInt8](hexadecimal: headsSHA256) ?? [], sealedAt: sealedAt)
    }
}

/// Each stream's last version and hash, as a verifier walking the log keeps them.
/// Memory grows with the number of streams, not of events.
public struct StreamHeads: Sendable {
    /// A stream's head.
    public struct Head: Sendable, Hashable {
        /// The stream's last version.
        public var version: Int64
        /// The hash of the stream's last event (its chain's head).
        public var hash: [UInt8]
    }

    /// By the stream id's bytes, as the stores tell streams apart (``StreamKey``).
    private(set) var heads: [StreamKey: Head] = [:]

    /// No streams.
    public init() {}

    /// The number of streams.
    public var count: Int { heads.count }

    /// A stream's head, if it has events.
    public subscript(stream: String) -> Head? {
        get { heads[StreamKey(stream)] }
        set { heads[StreamKey(stream)] = newValue }
    }

    /// SHA-256 over every head sorted by the stream id's UTF-8 bytes: for each, the stream id
    /// as a length-prefixed field, the version (8-byte big-endian) and the hash (32 raw bytes).
    /// Cost: O(streams × log streams).
    public func digest() -> [UInt8] {
        let hasher = SHA256Hasher()
        for (stream, head) in heads.sorted(by: { $0.key < $1.key }) {
            hasher.updateField(stream.id)
            hasher.update(head.version)
            head.hash.withUnsafeBytes { hasher.update($0) }
        }
        return hasher.finalize()
    }
}
