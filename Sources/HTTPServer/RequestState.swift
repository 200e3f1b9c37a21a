import Foundation
import HTTPAPI

/// What the server keeps for one request between libmicrohttpd's calls of the access handler.
final class RequestState {
    let started = ContinuousClock.now
    var body: [UInt8] = []
    var tooLarge = false
    var answered = false
    /// Whether the access handler has seen the request (its head checked).
    var begun = false
    /// The request target's length as a C string when the request line was read (see
    /// ``RequestHead/targetLength``).
    var targetLength: Int?
    /// A write handed to the write pool (its connection suspended until it is done).
    var write: PendingWrite?
}

/// A write request running on the write pool: its response, set before the connection is
/// resumed (libmicrohttpd's resume orders that store before the handler's next call).
final class PendingWrite: @unchecked Sendable {
    // @unchecked: `response` is written by the pool's thread before MHD_resume_connection
    // and read by the connection's thread after it; `connection` is immutable.
    var response: HTTPResponse?
    let connection: OpaquePointer
    /// The client's `X-Request-ID`, for the log line.
    let requestID: String?
    init(connection: OpaquePointer, requestID: String?) {
        self.connection = connection
        self.requestID = requestID
    }
}

/// A Server-Sent Events body being sent: the chunk not yet taken by libmicrohttpd.
final class StreamState {
    let stream: EventStream
    var pending: [UInt8] = []
    var offset = 0

    init(stream: EventStream) { self.stream = stream }
}
