import Foundation

/// One operation of the API: a method, a path template and who may call it.
package struct Route: Sendable {
    /// The method, e.g. `PUT`.
    package var method: String
    /// The path template, e.g. `/v1/users/{user}/favorites/{listing}`.
    package var template: String {
        didSet { segments = Self.split(template) }
    }
    /// The roles that may call it; nil for an operation open to anyone (health, the OpenAPI document).
    package var roles: Set<Role>?
    /// The OpenAPI operation id, also the route's name in metrics.
    package var name: String
    let handler: @Sendable (API, RouteMatch) throws -> HTTPResponse

    /// The template's segments, split once (matching runs for every route of every request).
    private(set) var segments: [Segment]

    /// A segment of a template: text the path must hold, or a parameter that takes any.
    enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    /// A route: `handler` answers a request whose method and path fit.
    init(method: String, template: String, roles: Set<Role>?, name: String,
         handler: @escaping @Sendable (API, RouteMatch) throws -> HTTPResponse) {
        self.method = method
        self.template = template
        self.roles = roles
        self.name = name
        self.handler = handler
        self.segments = Self.split(template)
    }

    private static func split(_ template: String) -> [Segment] {
        template.split(separator: "/").map { $0.hasPrefix("{") ? .parameter(String($0.dropFirst().dropLast())) : .literal(String($0)) }
    }

    /// Whether a path fits this route's template.
    /// The routes that answer with an event stream. A stream has no head without its body, so
    /// they take GET only (libmicrohttpd would send a chunked body's end after a HEAD's head).
    static let streamingNames: Set<String> = ["streamUserEvents", "streamLog"]

    /// The methods a request may use here: a GET route that does not stream also takes HEAD.
    var methods: [String] { takesHead ? ["GET", "HEAD"] : [method] }

    /// Whether a request with `requestMethod` is for this route (its path aside).
    func takes(_ requestMethod: String) -> Bool { requestMethod == method || (requestMethod == "HEAD" && takesHead) }

    private var takesHead: Bool { method == "GET" && !Self.streamingNames.contains(name) }

    func fits(_ path: [String]) -> Bool {
        guard segments.count == path.count else { return false }
        for (expected, actual) in zip(segments, path) {
            if case .literal(let text) = expected, text != actual { return false }
        }
        return true
    }

    /// The parameters of a path when it fits this route's template, else nil.
    func parameters(for path: [String]) -> [String: String]? {
        guard fits(path) else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(segments, path) {
            if case .parameter(let name) = expected { parameters[name] = actual }
        }
        return parameters
    }
}

/// A request matched to a route, with its path parameters decoded.
package struct RouteMatch: Sendable {
    /// The request.
    package var request: HTTPRequest
    /// The path parameters by name (`user`, `listing`).
    package var parameters: [String: String]
    /// The caller's role (admin when authentication is off).
    package var role: Role

    /// A path parameter.
    func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The decoded values of a query parameter, in order.
    func queryValues(_ name: String) throws(Problem) -> [String] {
        var values: [String] = []
        for pair in request.query {
            if try PathSegments.decodeQuery(pair.name, name: pair.name) == name {
                values.append(try PathSegments.decodeQuery(pair.value, name: name))
            }
        }
        return values
    }

    /// A query parameter given at most once.
    func query(_ name: String) throws(Problem) -> String? {
        let values = try queryValues(name)
        guard values.count <= 1 else { throw Problem(.malformedRequest, "query parameter '\(name)' is given more than once", field: name) }
        return values.first
    }

    /// A whole-number query parameter within `range`, or `defaultValue` when absent.
    func integer(_ name: String, default defaultValue: Int64, in range: ClosedRange<Int64>) throws(Problem) -> Int64 {
        guard let text = try query(name) else { return defaultValue }
        guard let value = Int64(text), range.contains(value) else {
            throw Problem(.malformedRequest, "query parameter '\(name)' must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", field: name)
        }
        return value
    }
}
