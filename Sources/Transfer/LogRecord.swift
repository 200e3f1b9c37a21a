import EventLog
import Foundation
import JSONKit

/// The export formats and how an import line becomes an event.
///
/// JSON Lines (`jsonl`): one event per line with every field:
/// `{"position":1,"stream":"ada","version":1,"id":"…","type":"Searched","recordedAt":"…","hash":"…","data":{…},"metadata":{…}}`.
/// `hash` is the event's link in its stream's hash chain (``EventChain``, 64 lower-case hex
/// digits; another text of it is refused); import recomputes
/// it in the target and refuses a line whose hash differs (older exports without it import).
/// `data` and `metadata` are the stored JSON, byte for byte; a payload that contains a line
/// break (JSON whitespace) is written as a string in `dataText`/`metadataText` instead, so
/// that every line stays one event and no byte changes.
///
/// CloudEvents 1.0 (`cloudevents`), structured mode, one event per line: `specversion`,
/// `id`, `source` (`/evtool/streams/STREAM`), `type`, `subject` (the stream), `time`,
/// `datacontenttype` (`application/json`), `data`, and the extension attributes
/// `evtoolposition`, `evtoolversion`, `evtoolhash` and `evtoolmetadata` (the metadata JSON as a string).
public enum LogRecord {
    /// An export format: JSON Lines with every field, or CloudEvents 1.0 (structured mode).
    public enum Format: String, Sendable { case jsonl, cloudevents }

    /// One export line for `event`.
    public static func line(for event: RecordedEvent, format: Format) -> String {
        switch format {
        case .jsonl:
            return jsonLine(for: event)
        case .cloudevents:
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("specversion"); writer.string("1.0")
            writer.key("id"); writer.string(event.id.lowercaseString)
            writer.key("source"); writer.string("/evtool/streams/" + (event.streamID.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? event.streamID))
            writer.key("type"); writer.string(event.type)
            writer.key("subject"); writer.string(event.streamID)
            writer.key("time"); writer.date(event.recordedAt)
            writer.key("datacontenttype"); writer.string("application/json")
            writer.key("evtoolposition"); writer.number(event.position)
            writer.key("evtoolversion"); writer.number(event.version)
            writer.key("evtoolhash"); writer.string(event.hash)
            writer.key("evtoolmetadata"); writer.string(String(decoding: event.metadata, as: UTF8.self))
            payload("data", event.data, to: &writer)
            writer.endObject()
            return writer.text
        }
    }

    /// An event read from an import line.
    public struct Imported: Sendable {
        /// The stream the event belongs to.
        public var stream: String
        /// The event's version in its stream (from 1).
        public var version: Int64
        /// The event itself, with its id and recording time.
        public var event: ProposedEvent
        /// The event's chain hash in the log it came from, when the line has one.
        public var hash: String?

        /// An event to copy into `stream` at `version`, with its chain hash when known.
        public init(stream: String, version: Int64, event: ProposedEvent, hash: String? = nil) {
            self.stream = stream
            self.version = version
            self.event = event
            self.hash = hash
        }
    }

    /// Reads one line of either format; the error says what is wrong (the caller adds the line number).
    public static func parse(_ line: Data) throws(LineError) -> Imported {
        // The member ranges are offsets from the first byte: a slice of a larger buffer is
        // copied first, so that offsets and indices agree.
        let line = line.startIndex == 0 ? line : Data(line)
        return try parse(line, members: try members(of: line))
    }

    /// The top-level members of an import line, as byte ranges of their values (offsets from
    /// the line's first byte).
    public static func members(of line: Data) throws(LineError) -> [String: Range<Int>] {
        let line = line.startIndex == 0 ? line : Data(line)
        switch JSONSyntax.topLevelMembers(of: line) {
        case .success(let found): return found
        case .failure(let error): throw LineError(error.reason.hasSuffix(", not an object") ? error.reason : "not a JSON object: \(error.reason)")
        }
    }

    /// Reads one line of either format whose members were already found (``members(of:)``).
    public static func parse(_ line: Data, members: [String: Range<Int>]) throws(LineError) -> Imported {
        let line = line.startIndex == 0 ? line : Data(line)
        func raw(_ name: String) -> Data? { members[name].map { line.subdata(in: $0) } }
        func string(_ name: String) throws(LineError) -> String {
            guard let range = members[name] else { throw LineError("'\(name)' is missing") }
            if let plain = plainString(in: line, at: range) { return plain }
            guard let text = JSONScan.string(line, range) else {
                throw LineError("'\(name)' must be a string")
            }
            return text
        }
        func integer(_ name: String) throws(LineError) -> Int64 {
            guard let range = members[name] else { throw LineError("'\(name)' is missing") }
            guard let value = line.withUnsafeBytes({ JSONScan.integer($0, range) }) else { throw LineError("'\(name)' must be a whole number") }
            return Int64(value)
        }
        func json(_ name: String) throws(LineError) -> Data {
            if let bytes = raw(name) { return bytes }
            if members["\(name)Text"] != nil { return Data(try string("\(name)Text").utf8) }
            throw LineError("'\(name)' is missing")
        }
        let isCloudEvent = members["specversion"] != nil
        if isCloudEvent, try string("specversion") != "1.0" { throw LineError("only CloudEvents 1.0 can be imported") }
        let stream = try string(isCloudEvent ? "subject" : "stream")
        let version = try integer(isCloudEvent ? "evtoolversion" : "version")
        guard version >= 1 else { throw LineError("'version' must be 1 or more") }
        let idText = try string("id")
        guard let id = uuid(idText) else { throw LineError("'id' must be a UUID, not '\(idText.prefix(60))'") }
        let type = try string("type")
        let timeText = try string(isCloudEvent ? "time" : "recordedAt")
        guard let recordedAt = Timestamp.parse(timeText) ?? TimeText.parse(timeText) else {
            throw LineError("'\(isCloudEvent ? "time" : "recordedAt")' must be a time like 2026-11-30T11:15:21.123456Z")
        }
        let data = try json("data")
        let metadata = isCloudEvent ? Data(try string("evtoolmetadata").utf8) : try json("metadata")
        let hashName = isCloudEvent ? "evtoolhash" : "hash"
        var hash: String?
        if members[hashName] != nil {
            let text = try string(hashName)
            guard text.utf8.count == 64, CanonicalText.lowercaseHex(text) != nil else {
                throw LineError("'\(hashName)' must be 64 lower-case hexadecimal digits (as evtool writes it), not '\(text.prefix(70))'")
            }
            hash = text
        }
        return Imported(stream: stream, version: version,
                        event: ProposedEvent(id: id, type: type, data: data, metadata: metadata, recordedAt: recordedAt), hash: hash)
    }

    /// Why an import line is not an event (without the line number, which the caller adds).
    public struct LineError: Error, Sendable {
        /// What is wrong with the line, for a user.
        public var reason: String
        init(_ reason: String) { self.reason = reason }
    }
}
