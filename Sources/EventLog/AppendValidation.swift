import Foundation
import JSONKit

/// The input rules every store applies before it appends, so that all stores accept and
/// refuse exactly the same batches.
public enum AppendValidation {
    /// The longest stream id, in UTF-8 bytes.
    public static let maximumStreamIDLength = 512
    /// The longest type name, in UTF-8 bytes.
    public static let maximumTypeLength = 256

    /// The first character of the stream ids evtool keeps for itself: `$erasures`
    /// (``Erasure/stream``) and any other id that begins with `$`.
    public static let reservedStreamPrefix: Unicode.Scalar = "$"

    /// Whether `stream` is one of evtool's own streams (it begins with
    /// ``reservedStreamPrefix``), which only evtool's erasure writes and copies of an evtool
    /// log (``StreamAppend/copiesLog``) append to.
    public static func isReserved(_ stream: String) -> Bool {
        stream.utf8.first == UInt8(ascii: reservedStreamPrefix)
    }

    /// Why `stream` cannot be written by an append, in words that name it; nil when it is not
    /// reserved (``isReserved(_:)``). Each input names it in its own field (`stream id`, `user id`).
    public static func reservedStreamRule(_ stream: String) -> String? {
        guard isReserved(stream) else { return nil }
        return "'\(stream)' is reserved: ids beginning with '$' name evtool's own streams (the erasure log '\(Erasure.stream)'), which only evtool writes"
    }

    /// Checks a batch; throws ``EventStoreError/invalidInput(_:)`` naming the first problem.
    /// A reserved stream (``isReserved(_:)``) and an erasure's marker (``Erasure/markerType``
    /// with the marker's data) are refused unless `copiesLog` (the part copies another evtool
    /// log's events, ``StreamAppend/copiesLog``).
    /// Cost: O(total bytes), one pass over each payload.
    public static func validate(_ events: [ProposedEvent], stream: String, copiesLog: Bool = false) throws {
        if events.isEmpty {
            throw EventStoreError.invalidInput("an append needs at least one event (the batch is empty)")
        }
        try validateAppendedStreamID(stream)
        if !copiesLog, let rule = reservedStreamRule(stream) {
            throw EventStoreError.invalidInput("stream id \(rule)")
        }
        var ids = Set<UUID>(minimumCapacity: events.count)
        for index in events.indices {
            // Named only when something is wrong: building the words for every event costs.
            func which() -> String { events.count == 1 ? "the event" : "event \(index + 1) of \(events.count)" }
            let event = events[index]
            if let problem = nameProblem(event.type, maximumLength: maximumTypeLength) {
                throw EventStoreError.invalidInput("type of \(which()) \(problem)")
            }
            // A new type holds no invisible character (a bidirectional override would show an
            // auditor another name than the one stored); only a type beyond ASCII is looked at.
            if !copiesLog, event.type.utf8.contains(where: { $0 >= 0x80 }), let rule = Identifier.invisibleCharacterRule(in: event.type) {
                throw EventStoreError.invalidInput("type of \(which()) \(rule.replacingOccurrences(of: "ids refuse", with: "types refuse"))")
            }
            if let problem = JSONSyntax.problem(in: event.data) {
                throw EventStoreError.invalidInput("data of \(which()) is not valid JSON: \(problem)")
            }
            if let problem = JSONSyntax.problem(in: event.metadata) {
                throw EventStoreError.invalidInput("metadata of \(which()) is not valid JSON: \(problem)")
            }
            if !ids.insert(event.id).inserted {
                throw EventStoreError.duplicateEventID(event.id)
            }
            // The marker `forget` leaves in an erased user's stream resets what every view and
            // the decider know of the user: only the erasure writes it, and copies of a log.
            if !copiesLog, event.type == Erasure.markerType, Erasure.markerThroughVersion(event.data) != nil {
                throw EventStoreError.invalidInput("\(which()) is an erasure's marker (type '\(Erasure.markerType)' with its data): only evtool's erasure (forget) appends it")
            }
            if let erasure = event.erasure {
                guard Erasure.isTombstone(data: event.data, metadata: event.metadata) else {
                    throw EventStoreError.invalidInput("\(which()) is copied as erased, but its data and metadata are not the tombstone \(String(decoding: Erasure.tombstone, as: UTF8.self))")
                }
                guard erasure.dataSHA256.count == 32, erasure.metadataSHA256.count == 32 else {
                    throw EventStoreError.invalidInput("\(which()) is copied as erased with digests that are not 32 bytes each")
                }
            }
        }
    }

    /// Checks a stream id to read or erase: 1…512 bytes of UTF-8, no control characters.
    /// Streams written before the identity rule (``validateAppendedStreamID(_:)``) stay readable.
    public static func validateStreamID(_ stream: String) throws {
        try validateName(stream, field: "stream id", maximumLength: maximumStreamIDLength)
    }

    /// Checks a stream id to append to: what ``validateStreamID(_:)`` checks, no invisible
    /// character (format characters — zero-width, byte-order mark, bidirectional controls —
    /// and line separators, besides control characters), and Unicode normalization form C,
    /// so that two canonically equal ids can never name two streams (see ``Identifier``).
    public static func validateAppendedStreamID(_ stream: String) throws {
        try validateStreamID(stream)
        if let rule = Identifier.invisibleCharacterRule(in: stream) {
            throw EventStoreError.invalidInput("stream id \(rule)")
        }
        if !Identifier.isNFC(stream) {
            throw EventStoreError.invalidInput("stream id is not in Unicode normalization form C (NFC): ids are recorded in NFC so that one id names one stream (normalize it first)")
        }
    }

    private static func validateName(_ value: String, field: String, maximumLength: Int) throws {
        if let problem = nameProblem(value, maximumLength: maximumLength) {
            throw EventStoreError.invalidInput("\(field) \(problem)")
        }
    }

    /// What is wrong with a name, in words that follow its field's name; nil when it is fine.
    private static func nameProblem(_ value: String, maximumLength: Int) -> String? {
        let length = value.utf8.count
        if length == 0 { return "is empty" }
        if length > maximumLength { return "is \(length) bytes long; the limit is \(maximumLength)" }
        // Unicode's control characters (category Cc) are exactly U+0000–U+001F and U+007F–U+009F;
        // checking the ranges avoids a property lookup per character on every append.
        if value.unicodeScalars.contains(where: { $0.value < 0x20 || ($0.value >= 0x7F && $0.value <= 0x9F) }) {
            return "contains a control character"
        }
        return nil
    }
}
