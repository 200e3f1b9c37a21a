import EventLog
import JSONKit

extension RecentlyViewedProjection.Document {
    /// Writes the document: the bytes ``fields`` declares (checked against `Self.fields.write`
    /// by a property test), by hand (see ``FavoritesProjection/Document/write(to:)``).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items {
            writer.beginObject()
            writer.key("listingID"); writer.string(item.listingID)
            writer.key("name"); writer.string(item.name)
            writer.key("viewedAt"); writer.date(item.viewedAt)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
