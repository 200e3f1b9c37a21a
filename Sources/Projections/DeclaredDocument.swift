import JSONKit

/// A view document that declares the fields it keeps (``DocumentFields``); its JSON codec is
/// the one encoder and decoder that walk them.
public protocol DeclaredDocument: ViewDocument {
    /// The document's fields, in the order they are written.
    static var fields: DocumentFields<Self> { get }
    /// The view's name in messages about a stored document it cannot read (`favorites`).
    static var documentName: String { get }
}

extension DeclaredDocument {
    /// Writes the document's fields as one compact JSON object.
    public func write(to writer: inout JSONWriter) {
        Self.fields.write(self, to: &writer)
    }

    /// Reads a document written by ``write(to:)``.
    /// - Throws: ``ViewDocumentError`` naming the first top-level field that is missing or unusable.
    public init(json: JSONObject) throws {
        self = try Self.fields.readDocument(json, name: Self.documentName)
    }
}
