import Foundation

/// What the server sends back: a status, headers and a body, or a stream of events.
package struct HTTPResponse: Sendable {
    /// The status code.
    package var status: Int
    /// The headers, in order.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]
    /// For a Server-Sent Events response: what produces the stream (the body is then empty).
    package var eventStream: EventStream?
    /// What the server's request log adds to this request's line, never sent to the client:
    /// the store's own words for a 503 or a 500 (a file path, a server's address), which the
    /// client's problem document leaves out.
    package var logNote: String?

    /// Makes a response.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = [], eventStream: EventStream? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.eventStream = eventStream
    }

    /// A JSON response.
    package static func json(_ status: Int, _ body: [UInt8], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")] + headers, body: body)
    }

    /// The first value of a header by name (any case).
    package func header(_ name: String) -> String? {
        let name = HTTPText.lowercased(name)
        return headers.first { HTTPText.lowercased($0.name) == name }?.value
    }

    /// The body as text (for tests and logs of errors).
    package var text: String { String(decoding: body, as: UTF8.self) }
}
