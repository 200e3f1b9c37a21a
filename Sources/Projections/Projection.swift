import Foundation
import JSONKit

/// A view of the log as a fold: events change documents, one document per key.
///
/// No I/O here: the ``Projector`` loads documents, applies ``evolve(_:with:)`` and commits
/// them with the checkpoint.
public protocol Projection: Sendable {
    /// The document one key of the view holds.
    associatedtype Document: ViewDocument

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

    /// Whether events of `type` can change a document of this view: false only when
    /// ``key(for:)`` is nil for every event of that type, so that a fold of one view (time
    /// travel) skips them without decoding their payloads. True unless a view says otherwise.
    func reads(type: String) -> Bool

    /// Applies `event` to the document of its key, in place (nil: the key has no document;
    /// setting nil removes it). In place, as reducers do, so that a document is not copied
    /// on every event.
    func evolve(_ document: inout Document?, with event: ViewEvent)
}

extension Projection {
    /// Every type: a view that does not say which it reads is given every event.
    public func reads(type: String) -> Bool { true }
}

/// A view's document: stored as JSON that people can read and that this code reads back.
public protocol ViewDocument: Sendable, Equatable {
    /// Writes the document as compact JSON.
    func write(to writer: inout JSONWriter)
    /// Reads a document written by ``write(to:)``.
    init(json: JSONObject) throws
}

extension ViewDocument {
    /// The document's JSON.
    public var jsonData: Data {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.data
    }

    /// The document's JSON, written with `writer`, which is emptied first and keeps its
    /// storage: a commit encodes thousands of documents through one writer, so each costs one
    /// copy of its bytes instead of a new buffer grown a few times.
    public func jsonData(reusing writer: inout JSONWriter) -> Data {
        writer.removeAll()
        write(to: &writer)
        return writer.data
    }

    /// Reads a document from its JSON.
    public static func decode(_ data: Data) throws -> Self {
        guard let object = JSONObject(data) else { throw ViewDocumentError(reason: "a stored view document is not a JSON object") }
        return try Self(json: object)
    }
}

/// A stored document that this code cannot read (written by other code, or damaged).
public struct ViewDocumentError: Error, Sendable, CustomStringConvertible {
    /// Why the document cannot be read.
    public var reason: String
    public var description: String { reason }

    /// Makes the error.
    public init(reason: String) { self.reason = reason }

    static func missing(_ field: String, in document: String) -> ViewDocumentError {
        ViewDocumentError(reason: "a stored \(document) document has no usable '\(field)'")
    }
}

extension Projection {
    /// Folds events into documents from scratch (what a rebuild computes), for tests and time travel.
    public func fold(_ events: some Sequence<ViewEvent>) -> [String: Document] {
        var documents: [String: Document] = [:]
        for event in events {
            guard let key = key(for: event) else { continue }
            var document = documents.removeValue(forKey: key)
            evolve(&document, with: event)
            if let document { documents[key] = document }
        }
        return documents
    }
}
