import JSONKit

extension ListingSummary {
    /// Writes the summary as one JSON object, its keys in sorted order (as `JSONEncoder` with
    /// `.sortedKeys` writes it): what a `Favorited` payload and a favorites document hold.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("category"); writer.string(category)
        writer.key("localDateTime"); writer.string(localDateTime)
        writer.key("name"); writer.string(name)
        writer.key("venue"); writer.string(venue)
        writer.endObject()
    }
}
