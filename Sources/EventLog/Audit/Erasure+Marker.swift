import Foundation
import JSONKit

/// The marker an erasure appends to the erased user's own stream (docs/explanation/audit.md, "A decision
/// taken before an erasure is not recorded after it").
///
/// An erasure turns payloads into tombstones in place, which leaves a stream's version as it
/// was; a decision taken on the stream before the erasure (a cached state, a read, an `ETag`)
/// would then pass the append's version check and write erased data back into the log. The
/// marker, appended at the stream's next version in the erasure's own transaction, makes every
/// such append fail its check, so the command is decided again on the erased stream. It holds
/// no personal data (who and why stay in the `UserErased` event it names).
extension Erasure {
    /// The type of the marker event.
    public static let markerType = "Erased"
    /// The marker's metadata: none.
    public static let markerMetadata = Data("{}".utf8)

    /// The marker's data: `{"erasure":"<UserErased event id>","throughVersion":N}`, N the last
    /// version of the stream that the erasure covers (the marker is N + 1).
    public static func markerData(erasureEventID: UUID, throughVersion: Int64) -> Data {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("erasure"); writer.string(erasureEventID.lowercaseString)
        writer.key("throughVersion"); writer.number(throughVersion)
        writer.endObject()
        return writer.data
    }

    /// The marker event for the erasure recorded by the `UserErased` event `erasureEventID`.
    public static func marker(erasureEventID: UUID, throughVersion: Int64) -> ProposedEvent {
        ProposedEvent(type: markerType, data: markerData(erasureEventID: erasureEventID, throughVersion: throughVersion),
                      metadata: markerMetadata)
    }

    /// The version a marker's data says the erasure covers; nil unless the bytes are exactly
    /// what ``markerData(erasureEventID:throughVersion:)`` writes (a lowercase UUID, a version
    /// from 0 to 18 digits long, no spaces, nothing else).
    public static func markerThroughVersion(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        let head = Array(#"{"erasure":""#.utf8), middle = Array(#"","throughVersion":"#.utf8)
        let idLength = 36
        guard bytes.count > head.count + idLength + middle.count + 1, bytes[bytes.count - 1] == UInt8(ascii: "}") else { return nil }
        for (index, byte) in head.enumerated() where bytes[index] != byte { return nil }
        for index in head.count..<(head.count + idLength) {
            let byte = bytes[index], offset = index - head.count
            let dash = offset == 8 || offset == 13 || offset == 18 || offset == 23
            if dash ? byte != UInt8(ascii: "-") : !((48...57).contains(byte) || (97...102).contains(byte)) { return nil }
        }
        let afterID = head.count + idLength
        for (index, byte) in middle.enumerated() where bytes[afterID + index] != byte { return nil }
        let digits = (afterID + middle.count)..<(bytes.count - 1)
        guard (1...18).contains(digits.count) else { return nil }
        var version: Int64 = 0
        for index in digits {
            let byte = bytes[index]
            guard (48...57).contains(byte), !(index == digits.lowerBound && byte == 48 && digits.count > 1) else { return nil }
            version = version * 10 + Int64(byte - 48)
        }
        return version
    }

    /// The id of the `UserErased` event a marker's data names; nil unless the data is a
    /// marker's (``markerThroughVersion(_:)``).
    public static func markerErasureID(_ data: Data) -> UUID? {
        guard markerThroughVersion(data) != nil else { return nil }
        let head = #"{"erasure":""#.utf8.count
        return UUID(uuidString: String(decoding: data.dropFirst(head).prefix(36), as: UTF8.self))
    }

    /// ``markerThroughVersion(_:)`` of data held as `Data`.
    public static func markerThroughVersion(_ data: Data) -> Int64? {
        data.withUnsafeBytes { markerThroughVersion($0) }
    }

    /// Whether an event is an erasure's marker: its type, data of the marker's exact shape and
    /// no metadata. A later erasure leaves such an event as it is (it holds nothing to erase);
    /// anything else, whatever its type, is erased.
    public static func isMarker(type: String, data: Data, metadata: Data) -> Bool {
        type == markerType && metadata == markerMetadata && markerThroughVersion(data) != nil
    }

    /// ``isMarker(type:data:metadata:)`` of a recorded event.
    public static func isMarker(_ event: RecordedEvent) -> Bool {
        isMarker(type: event.type, data: event.data, metadata: event.metadata)
    }

    /// The same test as ``isMarker(type:data:metadata:)``, as a PostgreSQL condition on the
    /// columns `type`, `data` and `metadata` of the events table (`$type` is the parameter that
    /// holds ``markerType``).
    public static func markerCondition(typeParameter: String) -> String {
        #"(type = \#(typeParameter) AND metadata::text = '{}' AND data::text ~ '^\{"erasure":"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}","throughVersion":(0|[1-9][0-9]{0,17})\}$')"#
    }
}
