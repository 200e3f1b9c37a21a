import EventLog
import Foundation

/// A count and SHA-256 over every event of a log in order (stream, version, id, type, recording
/// time, data and metadata; not positions, which each store gives itself).
public struct LogDigest: Equatable, Sendable {
    /// The number of events.
    public var count: Int
    /// The SHA-256 digest.
    public var digest: [UInt8]
    /// The digest in hexadecimal.
    public var hex: String { digest.hexString }

    /// Reads `store`'s whole log in order and digests it.
    public static func of(_ store: any EventStore) throws -> LogDigest {
        let hasher = SHA256Hasher()
        var count = 0
        try store.forEachBatch { batch in
            for event in batch {
                hasher.updateField(event.streamID)
                hasher.update(event.version)
                hasher.updateField(event.id.lowercaseString)
                hasher.updateField(event.type)
                hasher.updateField(Timestamp.format(event.recordedAt))
                hasher.updateField(event.data)
                hasher.updateField(event.metadata)
            }
            count += batch.count
        }
        return LogDigest(count: count, digest: hasher.finalize())
    }
}
