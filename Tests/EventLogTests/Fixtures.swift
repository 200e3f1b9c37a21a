import EventLog
import Foundation

/// Small builders for events shaped like the project's user activity.
enum Fixtures {
    static func event(_ type: String = "Searched", _ json: String = #"{"keyword":"jazz"}"#, id: UUID = UUID()) -> ProposedEvent {
        ProposedEvent(id: id, type: type, data: Data(json.utf8), metadata: Data(#"{"user":"u"}"#.utf8))
    }

    static func events(_ count: Int, type: String = "Searched") -> [ProposedEvent] {
        (0..<count).map { event(type, #"{"keyword":"k\#($0)"}"#) }
    }
}
