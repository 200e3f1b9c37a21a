import EventLog
import Foundation

/// Stable ids for the events of a request, so the same request sent twice names the same
/// events and the store refuses the second copy.
///
/// An id is the first 16 bytes of SHA-256 over a fixed prefix, the user id, the request id
/// and the event's index in the command's batch (NUL-separated), shaped as an RFC 9562
/// version 8 (custom) UUID. Including the user means two users' request ids never collide.
public enum RequestIdentity {
    /// The id of the `index`th event (from 0) that `user`'s request `requestID` records.
    public static func eventID(user: String, requestID: String, index: Int) -> UUID {
        uuid(from: "evtool/event\u{0}\(user)\u{0}\(requestID)\u{0}\(index)")
    }

    /// The id of the command itself, used as the default correlation and causation id.
    public static func commandID(user: String, requestID: String) -> UUID {
        uuid(from: "evtool/command\u{0}\(user)\u{0}\(requestID)")
    }

    static func uuid(from name: String) -> UUID {
        var name = name
        var bytes = name.withUTF8 { SHA256Hasher.digest(UnsafeRawBufferPointer($0)) }
        bytes[6] = (bytes[6] & 0x0F) | 0x80   // version 8
        bytes[8] = (bytes[8] & 0x3F) | 0x80   // RFC 9562 variant
        return UUID(uuid: (
            bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
            bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }
}
