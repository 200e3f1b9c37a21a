/// What an import file holds, detected from its first line or given (`import --format`).
///
/// - ``jsonl``: evtool's own export (`evtool export`): every event with its stream, version,
///   id, time and hash, copied as it was (``EventCopier``).
/// - ``plain``: events from elsewhere, `{"stream","type","data","metadata"}` per line, with no
///   id, version or position: appended in file order with new ids and versions
///   (``EventAppender``); an optional `id` makes a line idempotent.
/// - ``cloudevents``: CloudEvents 1.0 in structured JSON mode, one per line: evtool's own
///   export (with the `evtoolversion` extension: copied as it was), or events of another
///   producer (appended like plain lines, the stream named by `subject`). One file holds one
///   or the other.
public enum ImportFormat: String, Sendable, CaseIterable {
    /// evtool's own JSON Lines export.
    case jsonl
    /// Plain event lines from elsewhere.
    case plain
    /// CloudEvents 1.0, structured JSON mode: evtool's own export or another producer's.
    case cloudevents

    /// The format a line is written in, from its member names: `specversion` is a CloudEvent,
    /// `version` or `position` evtool's export, `stream` a plain line; nil for none of them.
    static func detect(_ members: [String: Range<Int>]) -> ImportFormat? {
        if members["specversion"] != nil { return .cloudevents }
        if members["version"] != nil || members["position"] != nil { return .jsonl }
        if members["stream"] != nil { return .plain }
        return nil
    }

    /// What a line of this format is called in messages.
    var lineName: String {
        switch self {
        case .jsonl: return "an evtool export line"
        case .plain: return "a plain event line"
        case .cloudevents: return "a CloudEvent"
        }
    }

    /// The member that marks a line of this format, for messages.
    var markingMember: String {
        switch self {
        case .jsonl: return "version"
        case .plain: return "stream"
        case .cloudevents: return "specversion"
        }
    }
}
