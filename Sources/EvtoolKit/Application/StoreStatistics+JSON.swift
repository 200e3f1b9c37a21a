import EventLog
import JSONKit
import StorePostgres

extension StoreStatistics {
    /// Writes the statistics as one JSON object, as `evtool stats --json` and `GET /v1/stats`
    /// print them (docs/schemas/stats.schema.json): `events`, `streams`, `users`, `head`,
    /// `types` (count by type), `sizeBytes` when `size` is given (its value, or null when the
    /// store cannot say), `layout` for a PostgreSQL store (``PostgresLayout/write(to:)``), and
    /// `projections` with each view's lag behind the head.
    public func write(to writer: inout JSONWriter, size: Int?? = .none) {
        writer.beginObject()
        writer.key("events"); writer.number(events)
        writer.key("streams"); writer.number(streams)
        writer.key("users"); writer.number(users)
        writer.key("systemStreams"); writer.number(systemStreams)
        writer.key("head"); writer.number(head)
        writer.key("types"); writer.beginObject()
        for (type, count) in types.sorted(by: { $0.key < $1.key }) { writer.key(escaping: type); writer.number(count) }
        writer.endObject()
        if case .some(let bytes) = size {
            writer.key("sizeBytes")
            if let bytes { writer.number(bytes) } else { writer.null() }
        }
        if let layout {
            writer.key("layout"); layout.write(to: &writer)
        }
        writer.key("projections"); writer.beginArray()
        for status in projections {
            writer.beginObject()
            writer.key("name"); writer.string(status.name)
            writer.key("generation"); writer.number(status.generation)
            writer.key("version"); writer.number(status.version)
            writer.key("position"); writer.number(status.position)
            writer.key("active"); writer.bool(status.isActive)
            writer.key("lag"); writer.number(head - status.position)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}

extension PostgresLayout {
    /// Writes the layout as `evtool stats --json`, `GET /v1/stats` and `evtool init --json`
    /// print it: `name` (`single` or `partitioned`), `description` (as the text output says
    /// it), and for the partitioned layout `partitions` and `partitionSize` (positions each).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("name"); writer.string(name)
        writer.key("description"); writer.string(description)
        if case .partitioned(let partitions, let size) = self {
            writer.key("partitions"); writer.number(partitions)
            writer.key("partitionSize"); writer.number(size)
        }
        writer.endObject()
    }
}
