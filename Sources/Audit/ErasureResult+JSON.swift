import EventLog
import JSONKit

extension ErasureResult {
    /// The erasure as one JSON object, the same on every face (`evtool forget --json`,
    /// `POST /v1/admin/users/{user}/forget`; docs/schemas/forget.schema.json): `user`,
    /// `erasedEvents`, the `UserErased` event's `position` and `eventID`, whether this erasure was
    /// `recorded` (false: nothing was left to erase, and the event is the earlier erasure's), the operator (`by`),
    /// the position the views were `rebuiltThrough`, `walEmptied` (null off SQLite) and the
    /// `archived` files that still hold the user's events (empty on a store without archives).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("user"); writer.string(user)
        writer.key("erasedEvents"); writer.number(erasedEvents)
        writer.key("position"); writer.number(position)
        writer.key("eventID"); writer.string(outcome.eventID.lowercaseString)
        writer.key("recorded"); writer.bool(outcome.recorded)
        writer.key("by"); writer.string(operatorName)
        writer.key("rebuiltThrough"); writer.number(rebuiltThrough)
        writer.key("walEmptied")
        if let walEmptied { writer.bool(walEmptied) } else { writer.null() }
        writer.key("archived"); writer.beginArray()
        for entry in archived {
            writer.beginObject()
            writer.key("file"); writer.string(entry.file)
            writer.key("archive"); writer.number(entry.archive)
            writer.key("events"); writer.number(entry.events)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
    }
}
