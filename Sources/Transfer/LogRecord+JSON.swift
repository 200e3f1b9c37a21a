import EventLog
import Foundation
import JSONKit
import Projections

extension LogRecord {
    /// Writes `event` in the one JSON shape of an event (docs/reference/events.md, "An event as JSON"):
    /// `{"position","stream","version","id","type","recordedAt","hash","data","metadata"}`,
    /// as `evtool export` (JSON Lines), `log --json`, `history --json` and the HTTP API's
    /// events write it. `data` and `metadata` are the stored JSON, byte for byte; one that
    /// contains a line break is written as a string in `dataText`/`metadataText` instead, so
    /// that a JSON Lines line stays one event (and a server-sent event one `data:` line).
    public static func write(_ event: RecordedEvent, to writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(position: event.position, stream: event.streamID, version: event.version, id: event.id, type: event.type,
                     recordedAt: event.recordedAt, hash: event.hash, data: event.data, metadata: event.metadata, to: &writer)
        writer.endObject()
    }

    /// Writes a history entry: the event's JSON shape (``write(_:to:)``) and its `summary`,
    /// the line `evtool history` shows.
    public static func write(_ entry: History.Entry, to writer: inout JSONWriter) {
        writer.beginObject()
        writeMembers(position: entry.position, stream: entry.stream, version: entry.version, id: UUID(uuidString: entry.eventID), type: entry.type,
                     recordedAt: entry.recordedAt, hash: entry.hash, data: entry.data, metadata: entry.metadata, to: &writer)
        writer.key("summary"); writer.string(entry.summary)
        writer.endObject()
    }

    private static func writeMembers(position: Int64, stream: String, version: Int64, id: UUID?, type: String, recordedAt: Date,
                                     hash: String, data: Data, metadata: Data, to writer: inout JSONWriter) {
        writer.key("position"); writer.number(position)
        writer.key("stream"); writer.string(stream)
        writer.key("version"); writer.number(version)
        writer.key("id"); writer.string(id?.lowercaseString ?? "")
        writer.key("type"); writer.string(type)
        writer.key("recordedAt"); writer.date(recordedAt)
        writer.key("hash"); writer.string(hash)
        payload("data", data, to: &writer)
        payload("metadata", metadata, to: &writer)
    }

    /// A stored payload as it is, or as a string in `NAMEText` when it holds a line break or
    /// is not JSON at all. The store takes only JSON, so the last is a row changed behind its
    /// back: spliced in as it is, its bytes could close the object and add members of their
    /// own (`…},"stream":"someone-else"`); as a string they are shown, and `verify` names the
    /// event.
    static func payload(_ name: StaticString, _ json: Data, to writer: inout JSONWriter) {
        if json.contains(0x0A) || json.contains(0x0D) || JSONSyntax.problem(in: json) != nil {
            writer.key(escaping: "\(name)Text")
            writer.string(String(decoding: json, as: UTF8.self))
        } else {
            writer.key(name)
            writer.raw(json)
        }
    }

    /// One JSON Lines line for `event` (``write(_:to:)``).
    public static func jsonLine(for event: RecordedEvent) -> String {
        var writer = JSONWriter()
        write(event, to: &writer)
        return writer.text
    }
}
