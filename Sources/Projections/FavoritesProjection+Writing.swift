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
        // Through buffer pointers: each item is borrowed where it is, not copied out (a copy
        // retains and releases its five strings).
        if let large = list.large {
            for chunk in large.chunks {
                chunk.entries.withUnsafeBufferPointer { entries in
                    for index in entries.indices { entries[index].item.write(to: &writer) }
                }
            }
        } else {
            list.small.withUnsafeBufferPointer { items in
                for index in items.indices { items[index].write(to: &writer) }
            }
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
