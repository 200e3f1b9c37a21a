import Foundation

/// One HTTP request as the server received it, before routing: nothing in it is decoded yet
/// except the header names (lowercased).
package struct HTTPRequest: Sendable {
    /// The method, e.g. `GET`.
    package var method: String
    /// The path as sent, still percent-encoded, without the query.
    package var path: String
    /// The query's `name=value` pairs as sent, still percent-encoded, in order.
    package var query: [(name: String, value: String)]
    /// The headers by lowercased name; a header sent more than once is joined with `, `.
    package var headers: [String: String]
    /// The body (empty when none was sent).
    package var body: [UInt8]

    /// Makes a request.
    package init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.path = path
        self.query = query
        // The server hands them over lowercased already: kept as they are then.
        self.headers = headers.keys.allSatisfy({ HTTPText.lowercased($0) == $0 }) ? headers
            : Dictionary(headers.map { (HTTPText.lowercased($0.key), $0.value) }, uniquingKeysWith: { $0 + ", " + $1 })
        self.body = body
    }

    /// Parses a request target such as `/v1/log?after=3&limit=10` into its path and query.
    package init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let query = parts.count > 1 ? Self.queryPairs(String(parts[1])) : []
        self.init(method: method, path: String(parts[0]), query: query, headers: headers, body: body)
    }

    /// The `name=value` pairs of a raw query string (a name without `=` has an empty value).
    package static func queryPairs(_ query: String) -> [(name: String, value: String)] {
        query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// The headers the API reads that take one value (RFC 9110 §5.3: only a list may be sent as
    /// several fields): sent more than once, they are refused, never joined into one value (two
    /// `Idempotency-Key` fields would make a key no retry sends).
    package static let singleValued: Set<String> = [
        "authorization", "content-type", "idempotency-key", "last-event-id", "origin",
        "x-correlation-id", "x-occurred-at", "x-request-id", "x-source",
    ]

    /// Every header the API reads: the single-valued ones and the lists `If-Match` and
    /// `If-None-Match`. Their values must be UTF-8 text; another header's bytes are kept as
    /// they are (RFC 9110 §5.5: opaque).
    package static let read: Set<String> = singleValued.union(["if-match", "if-none-match"])

    /// A header's value by name (any case).
    package func header(_ name: String) -> String? { headers[HTTPText.lowercased(name)] }
}
