import EventLog
import JSONKit

extension RecentSearchesProjection.Document {
    /// Writes the document: the bytes ``fields`` declares (checked against `Self.fields.write`
    /// by a property test), by hand (see ``FavoritesProjection/Document/write(to:)``).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for item in items {
            writer.beginObject()
            writer.key("category"); writer.string(item.category.rawValue)
            writer.key("distance"); writer.number(item.distance)
            writer.key("keyword"); writer.string(item.keyword)
            item.writeLocation(to: &writer)
            if let resultCount = item.resultCount { writer.key("resultCount"); writer.number(resultCount) }
            writer.key("searchedAt"); writer.date(item.searchedAt)
            writer.key("units"); writer.string(item.units.rawValue)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension RecentSearchesProjection.Item {
    /// Writes the `location` member: `{"current":{"latitude":…,"longitude":…}}` or
    /// `{"custom":{"text":…}}` (the one writer of it, for the declared field and the document).
    func writeLocation(to writer: inout JSONWriter) {
        writer.key("location"); writer.beginObject()
        switch location {
        case let .current(latitude, longitude):
            writer.key("current"); writer.beginObject()
            writer.key("latitude"); writer.number(latitude)
            writer.key("longitude"); writer.number(longitude)
            writer.endObject()
        case let .custom(text):
            writer.key("custom"); writer.beginObject(); writer.key("text"); writer.string(text); writer.endObject()
        }
        writer.endObject()
    }
}
