import Foundation

/// The input rules every store applies before it appends, so that all stores accept and
/// refuse exactly the same batches.
public enum AppendValidation {
    /// The longest stream id, in UTF-8 bytes.
    public static let maximumStreamIDLength = 512
    /// The longest type name, in UTF-8 bytes.
    public static let maximumTypeLength = 256

    /// Checks a batch; throws ``EventStoreError/invalidInput(_:)`` naming the first problem.
    /// Cost: O(total bytes), one pass over each payload.
    public static func validate(_ events: [ProposedEvent], stream: String) throws {
        if events.isEmpty {
            throw EventStoreError.invalidInput("an append needs at least one event (the batch is empty)")
        }
        try validateStreamID(stream)
        var ids = Set<UUID>(minimumCapacity: events.count)
        for (index, event) in events.enumerated() {
            let which = events.count == 1 ? "the event" : "event \(index + 1) of \(events.count)"
            try validateName(event.type, field: "type of \(which)", maximumLength: maximumTypeLength)
            if let problem = JSONSyntax.problem(in: event.data) {
                throw EventStoreError.invalidInput("data of \(which) is not valid JSON: \(problem)")
            }
            if let problem = JSONSyntax.problem(in: event.metadata) {
                throw EventStoreError.invalidInput("metadata of \(which) is not valid JSON: \(problem)")
            }
            if !ids.insert(event.id).inserted {
                throw EventStoreError.duplicateEventID(event.id)
            }
        }
    }

    /// Checks a stream id: 1…512 bytes of UTF-8, no control characters.
    public static func validateStreamID(_ stream: String) throws {
        try validateName(stream, field: "stream id", maximumLength: maximumStreamIDLength)
    }

    private static func validateName(_ value: String, field: String, maximumLength: Int) throws {
        let length = value.utf8.count
        if length == 0 {
            throw EventStoreError.invalidInput("\(field) is empty")
        }
        if length > maximumLength {
            throw EventStoreError.invalidInput("\(field) is \(length) bytes long; the limit is \(maximumLength)")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw EventStoreError.invalidInput("\(field) contains a control character")
        }
    }
}
