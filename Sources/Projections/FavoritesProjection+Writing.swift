import Commands
import EventLog
import JSONKit

extension FavoritesProjection.Document {
    /// Writes the document: the bytes ``fields`` declares (`Self.fields.write` writes the same,
    /// which a property test checks on random documents), written by hand with the writer's
    /// own calls. A commit after a rebuild writes every document of the view, and the declared
    /// fields' closures and key paths cost several times what the bytes cost.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        if let large = list.large {
            for chunk in large.chunks { for entry in chunk.entries { entry.item.write(to: &writer) } }
        } else {
            for item in list.small { item.write(to: &writer) }
        }
        writer.endArray()
        writer.endObject()
    }
}

extension FavoritesProjection.Item {
    /// Writes the item as ``fields`` declares it.
    func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("addedAt"); writer.date(addedAt)
        writer.key("listingID"); writer.string(listingID)
        writer.key("summary")
        summary.write(to: &writer)
        writer.endObject()
    }
}
