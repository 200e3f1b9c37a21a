import EventLog
import Foundation

/// The audit metadata stored with every domain event (the ``ProposedEvent/metadata`` bytes).
///
/// Three times matter and are kept apart: ``occurredAt`` is the client's clock (it may be
/// wrong or late); ``handledAt`` is the app server's clock when the runner decided; the
/// store's ``RecordedEvent/recordedAt`` is the authoritative recording time.
///
/// JSON (compact, sorted keys, times in ``Timestamp`` text form):
/// `{"causationID":"…","correlationID":"…","handledAt":"2026-11-30T11:15:21.123456Z",`
/// `"occurredAt":"…","requestID":"…","schemaVersion":1,"source":"app-server-1","userID":"u-42"}`.
public struct EventMetadata: Sendable, Hashable, Codable {
    /// The schema version this release writes.
    public static let schemaVersion = 1

    /// The acting user (whose stream the event is in).
    public var userID: String
    /// When the action happened, by the client's clock.
    public var occurredAt: Date
    /// When the app server handled the command, by its clock.
    public var handledAt: Date
    /// Ties together everything caused by one user interaction (defaults to the command id).
    public var correlationID: String
    /// The id of the message that directly caused this event (defaults to the command id).
    public var causationID: String
    /// Which app server or client sent the command, e.g. `ios-app/4.2` or `api-eu-1`.
    public var source: String
    /// The client's request id, when it sent one; the same id twice records one event.
    public var requestID: String?

    /// Makes metadata.
    public init(
        userID: String, occurredAt: Date, handledAt: Date, correlationID: String, causationID: String,
        source: String, requestID: String? = nil
    ) {
        self.userID = userID
        self.occurredAt = occurredAt
        self.handledAt = handledAt
        self.correlationID = correlationID
        self.causationID = causationID
        self.source = source
        self.requestID = requestID
    }

    /// The metadata as compact JSON with sorted keys, byte for byte what `JSONEncoder` writes
    /// (sorted keys, slashes left alone), written by hand (``writtenJSON()``).
    /// Cost: one pass over the fields.
    public func encoded() throws -> Data {
        hasControlCharacters ? try EventJSON.encode(self) : writtenJSON()
    }

    /// Reads metadata bytes written by ``encoded()``.
    /// - Throws: ``DomainEventError/malformed(type:reason:)`` (type `metadata`) or
    ///   ``DomainEventError/newerSchema(type:found:supported:)``.
    public static func decode(_ data: Data) throws -> EventMetadata {
        try EventJSON.decode(EventMetadata.self, type: "metadata", from: data)
    }

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, userID, occurredAt, handledAt, correlationID, causationID, source, requestID
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        _ = try SchemaVersion.read(from: container, key: .schemaVersion, type: "metadata", current: Self.schemaVersion)
        func time(_ key: CodingKeys) throws -> Date {
            let text = try container.decode(String.self, forKey: key)
            guard let date = Timestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: container, debugDescription: "not a time like 2026-11-30T11:15:21.123456Z")
            }
            return date
        }
        userID = try container.decode(String.self, forKey: .userID)
        occurredAt = try time(.occurredAt)
        handledAt = try time(.handledAt)
        correlationID = try container.decode(String.self, forKey: .correlationID)
        causationID = try container.decode(String.self, forKey: .causationID)
        source = try container.decode(String.self, forKey: .source)
        requestID = try container.decodeIfPresent(String.self, forKey: .requestID)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.schemaVersion, forKey: .schemaVersion)
        try container.encode(userID, forKey: .userID)
        try container.encode(Timestamp.format(occurredAt), forKey: .occurredAt)
        try container.encode(Timestamp.format(handledAt), forKey: .handledAt)
        try container.encode(correlationID, forKey: .correlationID)
        try container.encode(causationID, forKey: .causationID)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(requestID, forKey: .requestID)
    }
}
