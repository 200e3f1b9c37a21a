import Foundation

/// A view of the log as a pure fold: events change documents, one document per key.
///
/// No I/O here: the ``Projector`` loads documents, applies ``evolve(_:with:)`` and commits
/// them with the checkpoint.
public protocol Projection: Sendable {
    /// The document one key of the view holds.
    associatedtype Document: Codable & Sendable & Equatable

    /// The view's stable name, e.g. `favorites`.
    var name: String { get }
    /// The version of this projection's code. Changing what it computes means raising it;
    /// the projector then rebuilds the view beside the old one and swaps it in when done.
    var version: Int { get }
    /// Whether keys are user ids (each document depends only on that user's stream), which
    /// lets time travel read one stream instead of the whole log.
    var isKeyedByUser: Bool { get }

    /// The key of the document `event` changes, or nil when the view ignores it.
    func key(for event: ViewEvent) -> String?

    /// The document after `event`; nil removes the key from the view.
    func evolve(_ document: Document?, with event: ViewEvent) -> Document?
}

extension Projection {
    /// Folds events into documents from scratch (what a rebuild computes), for tests and time travel.
    public func fold(_ events: some Sequence<ViewEvent>) -> [String: Document] {
        var documents: [String: Document] = [:]
        for event in events {
            guard let key = key(for: event) else { continue }
            documents[key] = evolve(documents[key], with: event)
        }
        return documents
    }
}

/// The JSON form of view documents: compact, sorted keys, so equal views are equal bytes.
enum DocumentJSON {
    static func encode<Document: Encodable>(_ document: Document) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(EventLogTimestamp.format(date))
        }
        return try encoder.encode(document)
    }

    static func decode<Document: Decodable>(_: Document.Type, from data: Data) throws -> Document {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = EventLogTimestamp.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a timestamp: \(text)")
            }
            return date
        }
        return try decoder.decode(Document.self, from: data)
    }
}

import EventLog
typealias EventLogTimestamp = EventLog.Timestamp
