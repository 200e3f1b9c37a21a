import EventLog
import Foundation

/// Hand-written JSON output of the command line's replies (events are written by the
/// library's ``EvtoolKit/LogRecord``).
enum JSONText {
    /// A JSON string literal for `text`.
    static func quoted(_ text: String) -> String { JSONSyntax.quoted(text) }
}

extension String {
    func leftPadded(to width: Int, with pad: Character = "0") -> String {
        count >= width ? self : String(repeating: pad, count: width - count) + self
    }
}
