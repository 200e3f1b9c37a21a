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

    /// The summary object at `range` of `raw`, read as ``Favorited/init(scanning:)`` reads.
    init?(scanning raw: UnsafeRawBufferPointer, _ range: Range<Int>) {
        var name: String?, venue: String?, dateTime: String?, category: String?, seen = MemberNames(raw)
        guard JSONScan.forEachMember(raw, range, { key, value in
            if seen.first(key, "name", 0) { name = JSONScan.string(raw, value) }
            else if seen.first(key, "venue", 1) { venue = JSONScan.string(raw, value) }
            else if seen.first(key, "localDateTime", 2) { dateTime = JSONScan.string(raw, value) }
            else if seen.first(key, "category", 3) { category = JSONScan.string(raw, value) }
        }), seen.usable, let name, let venue, let dateTime, let category else { return nil }
        self.init(name: name, venue: venue, localDateTime: dateTime, category: category)
    }
}
