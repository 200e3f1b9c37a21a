import EventLog
import Foundation
import JSONKit

/// An event from elsewhere, read from a plain line or another producer's CloudEvent: it has
/// a stream but no version, and gets the next version of its stream when appended
/// (``EventAppender``).
///
/// Its id is the line's `id` when that is a UUID; another `id` text (and a CloudEvent's
/// `source` with its `id`, which CloudEvents makes unique together) names a UUID derived from
/// it by SHA-256, so the same line imported again finds the event it made. A line without
/// `id` gets a new time-ordered id, and is appended every time it is imported.
public struct ForeignEvent: Sendable {
    /// The stream the event is appended to.
    public var stream: String
    /// The event, with its id and, when the line gave one, its time.
    public var event: ProposedEvent
    /// Whether the id came from the line (so importing it again is recognised).
    public var idIsGiven: Bool

    /// A foreign event for `stream`.
    public init(stream: String, event: ProposedEvent, idIsGiven: Bool) {
        self.stream = stream
        self.event = event
        self.idIsGiven = idIsGiven
    }

    /// The members a plain line may have.
    public static let plainMembers: Set<String> = ["stream", "type", "data", "metadata", "id"]

    /// Reads a plain line: `stream`, `type` and `data` (any JSON value) required, `metadata`
    /// (a JSON object, default `{}`) and `id` optional; any other member is refused by name.
    public static func plain(_ line: Data, members: [String: Range<Int>]) throws(LogRecord.LineError) -> ForeignEvent {
        if let unknown = members.keys.sorted().first(where: { !plainMembers.contains($0) }) {
            throw LogRecord.LineError("'\(unknown)' is not a member of a plain event line (stream, type, data, metadata and an optional id)")
        }
        let fields = LineFields(line: line, members: members)
        let stream = try fields.string("stream")
        let type = try fields.string("type")
        guard let data = fields.raw("data") else { throw LogRecord.LineError("'data' is missing") }
        var metadata = Data("{}".utf8)
        if let given = fields.raw("metadata") {
            guard given.first == UInt8(ascii: "{") else { throw LogRecord.LineError("'metadata' must be a JSON object") }
            metadata = given
        }
        var event = ProposedEvent(type: type, data: data, metadata: metadata)
        var given = false
        if members["id"] != nil {
            let text = try fields.string("id")
            guard !text.isEmpty else { throw LogRecord.LineError("'id' is empty") }
            event.id = UUID(uuidString: text) ?? derivedID("plain", text)
            given = true
        }
        return ForeignEvent(stream: stream, event: event, idIsGiven: given)
    }

    /// The CloudEvents attributes mapped to evtool's fields rather than kept in the metadata.
    /// The recording times an import takes, in microseconds since 1970: 1970 to 2199.
    static let acceptedTimes: Range<Int64> = 0..<Timestamp.microseconds(Timestamp.parse("2200-01-01T00:00:00.000000Z")!)

    static let mappedAttributes: Set<String> = ["specversion", "type", "subject", "time", "data", "datacontenttype"]

    /// Reads another producer's CloudEvent (1.0, structured JSON mode): `subject` is the
    /// stream, `type` the type, `time` the recording time, `data` the data (JSON; `null` when
    /// absent); `source`, `id` and every other attribute (extensions, `dataschema`) are kept
    /// in the metadata as `{"cloudevents":{…}}`. Refused: another `specversion`, a missing
    /// `id`, `source`, `type` or `subject`, `data_base64`, a `datacontenttype` that is not JSON.
    public static func cloudEvent(_ line: Data, members: [String: Range<Int>]) throws(LogRecord.LineError) -> ForeignEvent {
        let fields = LineFields(line: line, members: members)
        guard try fields.string("specversion") == "1.0" else { throw LogRecord.LineError("'specversion' must be \"1.0\": only CloudEvents 1.0 can be imported") }
        let id = try fields.string("id")
        let source = try fields.string("source")
        guard !id.isEmpty else { throw LogRecord.LineError("'id' is empty") }
        guard !source.isEmpty else { throw LogRecord.LineError("'source' is empty") }
        let type = try fields.string("type")
        guard members["subject"] != nil else {
            throw LogRecord.LineError("'subject' is missing: evtool files each event in a stream, named by the CloudEvent's subject")
        }
        let stream = try fields.string("subject")
        if members["data_base64"] != nil {
            throw LogRecord.LineError("'data_base64' (binary data) cannot be imported: evtool keeps JSON payloads")
        }
        if members["datacontenttype"] != nil {
            let contentType = try fields.string("datacontenttype").lowercased()
            let mediaType = contentType.prefix(while: { $0 != ";" }).trimmingCharacters(in: .whitespaces)
            guard mediaType == "application/json" || mediaType.hasSuffix("+json") || mediaType == "text/json" else {
                throw LogRecord.LineError("'datacontenttype' is '\(contentType.prefix(60))': only JSON data can be imported")
            }
        }
        var recordedAt: Date?
        if members["time"] != nil {
            let text = try fields.string("time")
            guard let time = Timestamp.parse(text) ?? TimeText.parse(text) else {
                throw LogRecord.LineError("'time' must be an RFC 3339 time like 2026-11-30T11:15:21.123456Z")
            }
            // Stores keep microseconds; a Date holds them exactly only within a few centuries of
            // 1970, and the text form has four-digit years: a time outside is refused, not moved.
            guard Self.acceptedTimes.contains(Timestamp.microseconds(time)) else {
                throw LogRecord.LineError("'time' is '\(text.prefix(40))': a recording time must be from 1970 to 2199")
            }
            recordedAt = time
        }
        let data = fields.raw("data") ?? Data("null".utf8)
        var kept: [String] = []
        for name in members.keys.sorted() where !mappedAttributes.contains(name) {
            guard let value = fields.raw(name) else { continue }
            kept.append(JSONString.quoted(name) + ":" + String(decoding: value, as: UTF8.self))
        }
        let metadata = Data(("{\"cloudevents\":{" + kept.joined(separator: ",") + "}}").utf8)
        let event = ProposedEvent(id: derivedID("cloudevents", source + "\u{0}" + id), type: type, data: data, metadata: metadata, recordedAt: recordedAt)
        return ForeignEvent(stream: stream, event: event, idIsGiven: true)
    }

    /// A UUID (version 8, RFC 9562) made from the SHA-256 of `kind` and `name`: the same name
    /// always makes the same id.
    public static func derivedID(_ kind: String, _ name: String) -> UUID {
        var bytes = SHA256Hasher.digest(Data("evtool-import\u{0}\(kind)\u{0}\(name)".utf8))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}

/// The members of one import line, read as the formats need them.
struct LineFields {
    let line: Data
    let members: [String: Range<Int>]

    /// The exact bytes of a member's value.
    func raw(_ name: String) -> Data? { members[name].map { line.subdata(in: $0) } }

    /// A member that must be a JSON string.
    func string(_ name: String) throws(LogRecord.LineError) -> String {
        guard let bytes = raw(name) else { throw LogRecord.LineError("'\(name)' is missing") }
        guard let text = (try? JSONSerialization.jsonObject(with: bytes, options: .fragmentsAllowed)) as? String else {
            throw LogRecord.LineError("'\(name)' must be a string")
        }
        return text
    }
}
