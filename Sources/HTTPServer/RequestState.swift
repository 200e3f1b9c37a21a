import Foundation
import HTTPAPI

/// What the server keeps for one request between libmicrohttpd's calls of the access handler.
final class RequestState {
    let started = ContinuousClock.now
    var body: [UInt8] = []
    var tooLarge = false
    var answered = false
}

/// A Server-Sent Events body being sent: the chunk not yet taken by libmicrohttpd.
final class StreamState {
    let stream: EventStream
    var pending: [UInt8] = []
    var offset = 0

    init(stream: EventStream) { self.stream = stream }
}
