import Foundation
import JSONKit

extension RecordResult {
    /// The outcome as one JSON object, the same on every face (the HTTP API's write answers,
    /// `evtool search|favorite|unfavorite|view --json`; docs/schemas/outcome.schema.json):
    /// `outcome` (`recorded` or `unchanged`), `user`, `type`, `version`; for recorded events
    /// their `position`, `positions` and `eventIDs`; for nothing recorded the `reason`; and
    /// `replayed`, true when a repeated request id answered with the first request's outcome.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("outcome"); writer.string(isRecorded ? "recorded" : "unchanged")
        writer.key("user"); writer.string(user)
        writer.key("type"); writer.string(type)
        writer.key("version"); writer.number(streamVersion)
        if let positions {
            writer.key("position"); writer.number(positions.lowerBound)
            writer.key("positions"); writer.beginArray(); writer.number(positions.lowerBound); writer.number(positions.upperBound); writer.endArray()
            writer.key("eventIDs"); writer.beginArray(); eventIDs.forEach { writer.string($0.lowercaseString) }; writer.endArray()
        }
        if let unchanged { writer.key("reason"); writer.string(unchanged.description) }
        writer.key("replayed"); writer.bool(isReplay)
        writer.endObject()
    }
}
