import Foundation

/// The one JSON configuration of event payloads and metadata: compact, sorted keys, slashes
/// left alone (links stay readable).
enum EventJSON {
    static func encode<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(value)
    }

    /// Decodes a payload, turning Foundation's decoding errors into ``DomainEventError/malformed(type:reason:)``.
    static func decode<Value: Decodable>(_: Value.Type, type: String, from data: Data) throws -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch let error as DecodingError {
            throw DomainEventError.malformed(type: type, reason: reason(error))
        }
    }

    /// A one-line reason for a decoding error: what is wrong and where.
    static func reason(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context, _ last: (any CodingKey)? = nil) -> String {
            let keys = context.codingPath + (last.map { [$0] } ?? [])
            let text = keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return text.isEmpty ? "the top level" : String(text.drop(while: { $0 == "." }))
        }
        switch error {
        case let .keyNotFound(key, context):
            return "\(path(context, key)) is missing"
        case let .valueNotFound(_, context):
            return "\(path(context)) is null"
        case let .typeMismatch(type, context):
            return "\(path(context)) is not a \(type)"
        case let .dataCorrupted(context):
            return "\(path(context)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
