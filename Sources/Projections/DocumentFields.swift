import Foundation
import JSONKit

/// The fields one JSON object of a view document keeps, in the order they are written, and
/// the one encoder and decoder that walk them: a view declares its fields instead of
/// hand-writing its codec (``DeclaredDocument``).
public struct DocumentFields<Root>: Sendable {
    /// The fields, in the order they are written.
    public let fields: [DocumentField<Root>]
    /// The value the decoder starts from and sets every field of (a field the JSON lacks makes
    /// the object unreadable, so nothing of it is ever seen).
    let blank: @Sendable () -> Root
    /// Computes what is derived from the fields (not stored), once they are read.
    let completed: @Sendable (inout Root) -> Void

    /// Makes the list.
    /// - Parameters:
    ///   - blank: a value to read the fields into.
    ///   - completed: sets what is derived from the fields read (not stored); by default nothing.
    public init(blank: @escaping @Sendable () -> Root, _ fields: [DocumentField<Root>],
                completed: @escaping @Sendable (inout Root) -> Void = { _ in }) {
        self.fields = fields
        self.blank = blank
        self.completed = completed
    }

    /// Writes `value` as one compact JSON object.
    public func write(_ value: Root, to writer: inout JSONWriter) {
        writer.beginObject()
        for field in fields { field.write(value, &writer) }
        writer.endObject()
    }

    /// Reads an object written by ``write(_:to:)``; nil when a field is missing or unusable.
    public func read(_ object: JSONObject) throws -> Root? {
        var value = blank()
        for field in fields {
            guard try field.read(object, &value) else { return nil }
        }
        completed(&value)
        return value
    }

    /// Reads a whole document; a missing or unusable field is a ``ViewDocumentError`` naming it.
    func readDocument(_ object: JSONObject, name: String) throws -> Root {
        var value = blank()
        for field in fields {
            guard try field.read(object, &value) else { throw ViewDocumentError.missing("\(field.key)", in: name) }
        }
        completed(&value)
        return value
    }
}
