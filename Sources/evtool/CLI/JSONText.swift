import EventLog
import Foundation

/// Hand-written JSON output for the hot paths (log, export): payloads are copied through as
/// the JSON they already are, never decoded and re-encoded.
enum JSONText {
    /// A JSON string literal for `text`.
    static func quoted(_ text: String) -> String { JSONSyntax.quoted(text) }

    /// One JSON Lines record with every field of a recorded event.
    static func line(for event: RecordedEvent) -> String {
        "{\"position\":\(event.position),\"stream\":\(quoted(event.streamID)),\"version\":\(event.version),"
            + "\"id\":\"\(event.id.lowercaseString)\",\"type\":\(quoted(event.type)),"
            + "\"recordedAt\":\"\(Timestamp.format(event.recordedAt))\","
            + "\"data\":\(String(decoding: event.data, as: UTF8.self)),\"metadata\":\(String(decoding: event.metadata, as: UTF8.self))}"
    }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
