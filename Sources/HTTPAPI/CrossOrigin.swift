/// Cross-origin resource sharing for browser clients (`evtool serve --cors-origin ORIGIN`,
/// docs/reference/http.md, "Browser clients"): off unless origins are named. For a listed
/// origin, a preflight `OPTIONS` is answered 204 with what the route allows
/// (``API/preflight(_:_:routeName:)``), and every answer carries `Access-Control-Allow-Origin`
/// and the headers a script may read (``applied(to:origin:)``, which the server edge calls for
/// every response). An origin that is not listed gets no CORS headers, so the browser keeps
/// the answer from its script.
package struct CrossOrigin: Sendable, Hashable {
    /// The origins allowed, as given (`scheme://host[:port]`), lowercased; empty when only `*` is.
    package let origins: [String]
    /// Whether `*` was given: any origin may call (answers say `*`).
    package let allowsAnyOrigin: Bool

    /// The request headers the API reads, which a preflight allows.
    package static let allowedHeaders = ["Authorization", "Content-Type", "Idempotency-Key", "If-Match", "If-None-Match", "X-Source",
                                        "X-Correlation-ID", "X-Occurred-At", "X-Request-ID"]
    /// The response headers a script may read besides the CORS-safelisted ones.
    package static let exposedHeaders = ["ETag", "Location", "Link", "Idempotent-Replayed", "Retry-After", "X-Request-ID"]
    /// How long a browser may keep a preflight's answer, in seconds.
    package static let maximumAge = 600

    /// A value of `--cors-origin` that is no origin.
    package struct InvalidOrigin: Error, CustomStringConvertible, Sendable {
        /// What is wrong, naming the value.
        package let description: String
    }

    /// The origins allowed: each `scheme://host[:port]` (http or https, no path, no trailing
    /// `/`), or `*` for any origin (only when given explicitly).
    /// - Throws: ``InvalidOrigin`` naming the first value that is neither.
    package init(origins given: [String]) throws(InvalidOrigin) {
        var origins: [String] = []
        var any = false
        for origin in given {
            if origin == "*" { any = true; continue }
            guard Self.isOrigin(origin) else {
                throw InvalidOrigin(description: "'\(origin)' is not an origin: give scheme://host[:port] (http or https, no path or trailing '/'), e.g. https://app.example, or '*' for any origin")
            }
            let lowered = HTTPText.lowercased(origin)
            if !origins.contains(lowered) { origins.append(lowered) }
        }
        self.origins = origins
        allowsAnyOrigin = any
    }

    /// Whether `text` is `http(s)://HOST[:PORT]`: a host of letters, digits, `-`, `.`, or a
    /// bracketed IPv6 address, and a port of digits.
    static func isOrigin(_ text: String) -> Bool {
        let lowered = HTTPText.lowercased(text)
        let rest: Substring
        if lowered.hasPrefix("https://") { rest = lowered.dropFirst(8) } else if lowered.hasPrefix("http://") { rest = lowered.dropFirst(7) } else { return false }
        var host = rest
        var port: Substring?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return false }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return false }
                port = after.dropFirst()
            }
            guard !host.isEmpty, host.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return false }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                port = rest[rest.index(after: colon)...]
            }
            guard !host.isEmpty, host.allSatisfy({ ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "-" || $0 == "." }) else { return false }
        }
        if let port {
            guard !port.isEmpty, port.count <= 5, port.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(port), number <= 65_535 else { return false }
        }
        return true
    }

    /// The `Access-Control-Allow-Origin` value for a request's `Origin`: `*` when any origin
    /// may call, the origin itself when it is listed, nil otherwise (no CORS headers then).
    package func allowedOrigin(_ origin: String?) -> String? {
        guard let origin, !origin.isEmpty else { return nil }
        if allowsAnyOrigin { return "*" }
        return origins.contains(HTTPText.lowercased(origin)) ? origin : nil
    }

    /// An answer to a request from `origin` as a browser needs it: `Vary: Origin` always (the
    /// answer depends on it; added to a `Vary` the answer has), and for an allowed origin
    /// `Access-Control-Allow-Origin` and `Access-Control-Expose-Headers`. A preflight's answer,
    /// which has its own, gets only the `Vary`.
    package func applied(to response: HTTPResponse, origin: String?) -> HTTPResponse {
        var response = response
        if let index = response.headers.firstIndex(where: { HTTPText.equalsIgnoringCase($0.name, "vary") }) {
            let values = response.headers[index].value.split(separator: ",").map { HTTPText.lowercased(String(HTTPText.trimmed($0))) }
            if !values.contains("origin") && !values.contains("*") { response.headers[index].value += ", Origin" }
        } else {
            response.headers.append((name: "Vary", value: "Origin"))
        }
        let answered = response.headers.contains { HTTPText.equalsIgnoringCase($0.name, "access-control-allow-origin") }
        if !answered, let allowed = allowedOrigin(origin) {
            response.headers.append((name: "Access-Control-Allow-Origin", value: allowed))
            response.headers.append((name: "Access-Control-Expose-Headers", value: Self.exposedHeaders.joined(separator: ", ")))
        }
        return response
    }
}
