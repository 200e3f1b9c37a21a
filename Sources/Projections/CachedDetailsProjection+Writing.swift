import EventLog
import JSONKit

extension CachedDetailsProjection.Document {
    /// Writes the document: the bytes ``fields`` declares (checked against `Self.fields.write`
    /// by a property test), by hand (see ``FavoritesProjection/Document/write(to:)``).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("details"); writer.raw(details)
        writer.key("fetchedAt"); writer.date(fetchedAt)
        writer.key("fetchedBy"); writer.string(fetchedBy)
        writer.key("views"); writer.number(views)
        writer.endObject()
    }
}
