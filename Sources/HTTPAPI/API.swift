import EventLog
import EvtoolKit
import Foundation

/// The HTTP API as pure functions: routes a decoded request to its handler, checks the bearer
/// token and its role, and turns every failure into a problem document. No socket here: the
/// server edge (``HTTPServer``) hands requests in and sends the responses out.
package final class API: Sendable {
    /// Limits the API enforces (the server edge enforces them earlier where it can).
    package struct Limits: Sendable, Hashable {
        /// The largest request body accepted, in bytes (413 beyond).
        package var maximumBodyBytes: Int = 1 << 20
        /// The most entries one page of history or the log holds.
        package var maximumPageSize: Int64 = 1_000
        /// Seconds between heartbeat comments on an idle event stream.
        package var heartbeatSeconds: Double = 15

        /// The defaults: 1 MiB bodies, pages of 1,000, a heartbeat every 15 s.
        package init() {}
    }

    /// The application every handler calls.
    package let application: Application
    /// The accepted tokens; nil when authentication is off (`--no-auth`: every caller is admin).
    package var tokens: TokenFile? { tokenStore?.withLock { $0 } }
    /// The tokens behind a lock, replaced whole by ``replaceTokens(_:)``.
    private let tokenStore: Locked<TokenFile>?
    /// The limits.
    package let limits: Limits
    /// The counters `/metrics` shows.
    package let metrics: Metrics
    /// The Ed25519 key `POST /v1/admin/seal` signs its checkpoint with (`--seal-key`); nil: unsigned.
    package let sealKey: Ed25519Key?
    /// Where the admin routes write their audit lines (one line, newline included, per operation).
    package let auditLog: @Sendable (String) -> Void
    /// How the audit report pages name the store (a path or URL without its password).
    package let storeDescription: String
    /// The origins browser clients may call from (`--cors-origin`); nil: no CORS headers, and
    /// `OPTIONS` is a method no route allows (405).
    package let crossOrigin: CrossOrigin?
    /// The store's size on disk, as `GET /v1/stats` gives it in `sizeBytes` (as `evtool stats
    /// --json` does): the SQLite file with its WAL, nil (JSON null) when the store cannot say.
    package let storeSize: @Sendable () -> Int?

    /// Makes the API over an application.
    package init(application: Application, tokens: TokenFile?, limits: Limits = Limits(), metrics: Metrics = Metrics(),
                sealKey: Ed25519Key? = nil, auditLog: @escaping @Sendable (String) -> Void = { _ in },
                storeDescription: String = "the server's store", crossOrigin: CrossOrigin? = nil,
                storeSize: @escaping @Sendable () -> Int? = { nil }) {
        self.application = application
        self.tokenStore = tokens.map { Locked($0) }
        self.limits = limits
        self.metrics = metrics
        self.sealKey = sealKey
        self.auditLog = auditLog
        self.storeDescription = storeDescription
        self.crossOrigin = crossOrigin
        self.storeSize = storeSize
    }

    /// Every route, in the order the OpenAPI document lists them.
    package static let routes: [Route] = [
        Route(method: "POST", template: "/v1/users/{user}/searches", roles: [.app, .user, .admin], name: "recordSearch", handler: { try $0.recordSearch($1) }),
        Route(method: "PUT", template: "/v1/users/{user}/favorites/{listing}", roles: [.app, .user, .admin], name: "addFavorite", handler: { try $0.addFavorite($1) }),
        Route(method: "DELETE", template: "/v1/users/{user}/favorites/{listing}", roles: [.app, .user, .admin], name: "removeFavorite", handler: { try $0.removeFavorite($1) }),
        Route(method: "POST", template: "/v1/users/{user}/views", roles: [.app, .user, .admin], name: "recordView", handler: { try $0.recordView($1) }),
        Route(method: "GET", template: "/v1/users/{user}/favorites", roles: [.app, .user, .auditor, .admin], name: "getFavorites", handler: { try $0.favorites($1) }),
        Route(method: "GET", template: "/v1/users/{user}/recent-searches", roles: [.app, .user, .auditor, .admin], name: "getRecentSearches", handler: { try $0.recentSearches($1) }),
        Route(method: "GET", template: "/v1/users/{user}/recently-viewed", roles: [.app, .user, .auditor, .admin], name: "getRecentlyViewed", handler: { try $0.recentlyViewed($1) }),
        Route(method: "GET", template: "/v1/users/{user}/listings/{listing}", roles: [.app, .user, .auditor, .admin], name: "getUserListing", handler: { try $0.userListing($1) }),
        Route(method: "GET", template: "/v1/users/{user}/events", roles: [.app, .user, .auditor, .admin], name: "streamUserEvents", handler: { try $0.userEvents($1) }),
        Route(method: "GET", template: "/v1/users/{user}/history", roles: [.auditor, .admin], name: "getHistory", handler: { try $0.history($1) }),
        Route(method: "GET", template: "/v1/listings/{listing}/details", roles: [.app, .user, .auditor, .admin], name: "getListingDetails", handler: { try $0.listingDetails($1) }),
        Route(method: "GET", template: "/v1/log", roles: [.auditor, .admin], name: "getLog", handler: { try $0.log($1) }),
        Route(method: "GET", template: "/v1/log/stream", roles: [.auditor, .admin], name: "streamLog", handler: { try $0.logStream($1) }),
        Route(method: "GET", template: "/v1/stats", roles: [.auditor, .admin], name: "getStats", handler: { try $0.stats($1) }),
        Route(method: "GET", template: "/healthz", roles: nil, name: "health", handler: { try $0.health($1) }),
        Route(method: "GET", template: "/readyz", roles: nil, name: "ready", handler: { try $0.ready($1) }),
        Route(method: "GET", template: "/metrics", roles: [.auditor, .admin], name: "metrics", handler: { try $0.metricsText($1) }),
        Route(method: "GET", template: "/openapi.json", roles: nil, name: "openapi", handler: { try $0.openAPI($1) }),
        Route(method: "GET", template: "/problems/{kind}", roles: nil, name: "problemPage", handler: { try $0.problemPage($1) }),
    ] + adminRoutes + auditRoutes + proofRoutes

    /// Answers one request; never throws: every failure is a problem document.
    package func respond(to request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        var routeName = "unmatched"
        let response: HTTPResponse
        do {
            if request.method == "OPTIONS", let crossOrigin {
                response = try preflight(request, crossOrigin, routeName: &routeName)
            } else {
                let (route, match) = try self.match(request, routeName: &routeName)
                response = Self.revalidated(try route.handler(self, match), request)
            }
        } catch {
            response = Self.problem(for: error).response
        }
        metrics.observe(route: routeName, status: response.status, duration: ContinuousClock.now - started)
        return response
    }

    /// The answer to a request whose head alone is refused (no route at its path or for its
    /// method, no token or one whose role may not call the route, a query the route does not
    /// take), or nil when its head passes: for a client that waits (`Expect: 100-continue`)
    /// before it sends its body, which it need not send then.
    package func refusal(ofHead request: HTTPRequest) -> HTTPResponse? {
        guard request.method != "OPTIONS" else { return nil }
        let started = ContinuousClock.now
        var routeName = "unmatched"
        do {
            _ = try match(request, routeName: &routeName)
            return nil
        } catch {
            let response = Self.problem(for: error).response
            metrics.observe(route: routeName, status: response.status, duration: ContinuousClock.now - started)
            return response
        }
    }

    /// The route and match for a request, after the path, method, token and role checks;
    /// `routeName` is the route's name as soon as the path and method found it (so that a
    /// 401 or 403 is counted under the route that was asked for).
    func match(_ request: HTTPRequest, routeName: inout String) throws -> (Route, RouteMatch) {
        let path = try PathSegments.decode(request.path)
        // The route of this method and path; only a request that has none looks at the others.
        guard let route = Self.routes.first(where: { $0.takes(request.method) && $0.fits(path) }),
              let parameters = route.parameters(for: path) else {
            let candidates = Self.routes.filter { $0.fits(path) }
            guard !candidates.isEmpty else { throw Problem(.notFound, "no resource at this path") }
            let allowed = candidates.flatMap(\.methods).joined(separator: ", ")
            throw Problem(.methodNotAllowed, "\(request.method) is not allowed here; allowed: \(allowed)", headers: [("Allow", allowed)])
        }
        routeName = route.name
        var role = Role.admin
        if let roles = route.roles {
            let caller = try authenticate(request)
            role = caller.role
            guard roles.contains(role) else {
                throw Problem(.forbidden, "the role '\(role.rawValue)' may not \(route.method) \(route.template); roles that may: \(Role.allCases.filter { roles.contains($0) }.map(\.rawValue).joined(separator: ", "))")
            }
            try Self.checkBoundUser(caller.user, of: role, route: route, parameters: parameters)
        }
        let accepted = OpenAPIDocument.queryParameters[route.name] ?? []
        for pair in request.query {
            let name = try PathSegments.decodeQuery(pair.name, name: pair.name)
            guard accepted.contains(name) else {
                let takes = accepted.isEmpty ? "it takes no query parameters" : "it takes " + accepted.sorted().map { "'\($0)'" }.joined(separator: ", ")
                throw Problem(.malformedRequest, "query parameter '\(name)' is not one \(route.method) \(route.template) takes; \(takes)", field: name)
            }
        }
        if !request.body.isEmpty, OpenAPIDocument.requestBodies[route.name] == nil {
            throw Problem(.malformedRequest, "\(route.method) \(route.template) takes no body; send none (this one has \(request.body.count) bytes)")
        }
        if request.body.count > limits.maximumBodyBytes {
            throw Problem(.bodyTooLarge, "the body has \(request.body.count) bytes; at most \(limits.maximumBodyBytes) are accepted")
        }
        return (route, RouteMatch(request: request, parameters: parameters, role: role))
    }

    /// A preflight (`OPTIONS`, with `--cors-origin`): 204 with `Allow` (the path's methods and
    /// `OPTIONS`) and `Vary: Origin`; for an allowed `Origin` also `Access-Control-Allow-Origin`,
    /// `-Methods` (the path's), `-Headers` (those the API reads) and `-Max-Age`. No token is
    /// needed: a browser sends none with a preflight. A path no route serves is a 404.
    func preflight(_ request: HTTPRequest, _ crossOrigin: CrossOrigin, routeName: inout String) throws -> HTTPResponse {
        let path = try PathSegments.decode(request.path)
        let candidates = Self.routes.filter { $0.fits(path) }
        guard let first = candidates.first else { throw Problem(.notFound, "no resource at this path") }
        routeName = first.name
        // HEAD is a CORS-safelisted method: the Allow header names it, the CORS one need not.
        let methods = candidates.map(\.method)
        var headers: [(name: String, value: String)] = [("Allow", (candidates.flatMap(\.methods) + ["OPTIONS"]).joined(separator: ", ")), ("Vary", "Origin")]
        if let allowed = crossOrigin.allowedOrigin(request.header("origin")) {
            headers += [("Access-Control-Allow-Origin", allowed),
                        ("Access-Control-Allow-Methods", methods.joined(separator: ", ")),
                        ("Access-Control-Allow-Headers", CrossOrigin.allowedHeaders.joined(separator: ", ")),
                        ("Access-Control-Max-Age", String(CrossOrigin.maximumAge))]
        }
        return HTTPResponse(status: 204, headers: headers)
    }

    /// A read's answer as a cache that holds it needs it: 304 Not Modified, with its `ETag` and
    /// no body, when the request's `If-None-Match` names the answer's current tag (RFC 9110
    /// §13.1.2: weak comparison, `*` matches any); the answer itself otherwise.
    static func revalidated(_ response: HTTPResponse, _ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD", response.status == 200,
              let header = request.header("if-none-match"),
              let tag = response.headers.first(where: { HTTPText.equalsIgnoringCase($0.name, "etag") })?.value else { return response }
        func opaque(_ tag: Substring) -> Substring { tag.hasPrefix("W/") ? tag.dropFirst(2) : tag }
        let current = opaque(tag[...])
        let matches = header.split(separator: ",").contains { candidate in
            let candidate = HTTPText.trimmed(candidate)
            return candidate == "*" || opaque(candidate) == current
        }
        guard matches else { return response }
        return HTTPResponse(status: 304, headers: response.headers.filter { ["etag", "cache-control", "vary"].contains(HTTPText.lowercased($0.name)) }, body: [])
    }

    /// A `user` token acts for its one user: on a route whose path names a user, that user
    /// (decoded, then checked and in NFC as the routes name a user's stream,
    /// ``TokenFile/userID(_:)``) must be the token's, else 403 (the detail names the token's
    /// own user, never the path's). A route without `{user}` (a listing's cached details) and
    /// the other roles pass.
    static func checkBoundUser(_ bound: String?, of role: Role, route: Route, parameters: [String: String]) throws(Problem) {
        guard role == .user, let typed = parameters["user"] else { return }
        guard let bound, let user = try? TokenFile.userID(typed), user == bound else {
            let own = bound.map { " ('\($0)')" } ?? ""
            throw Problem(.forbidden, "a user token acts for one user only\(own): it may \(route.method) \(route.template) for that user, not for the user this path names")
        }
    }

    /// Replaces the accepted tokens with `file` (`evtool serve` on SIGHUP: its tokens file read
    /// again), for the requests after this; false, and nothing changed, when authentication is off.
    @discardableResult
    package func replaceTokens(_ file: TokenFile) -> Bool {
        guard let tokenStore else { return false }
        tokenStore.withLock { $0 = file }
        return true
    }

    /// The caller's role from `Authorization: Bearer TOKEN`, and the user a `user` token is
    /// bound to (nil for the other roles).
    func authenticate(_ request: HTTPRequest) throws(Problem) -> (role: Role, user: String?) {
        guard let tokenStore else { return (.admin, nil) }
        let challenge = [(name: "WWW-Authenticate", value: "Bearer realm=\"evtool\"")]
        guard let header = request.header("authorization") else {
            throw Problem(.unauthorized, "send 'Authorization: Bearer TOKEN' (make a token with 'evtool token create')", headers: challenge)
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, HTTPText.equalsIgnoringCase(parts[0], "bearer") else {
            throw Problem(.unauthorized, "the Authorization header must be 'Bearer TOKEN'", headers: challenge)
        }
        var token = String(HTTPText.trimmed(parts[1]))
        let digest = token.withUTF8 { SHA256Hasher.digest(UnsafeRawBufferPointer($0)) }
        guard let entry = tokenStore.withLock({ $0.entry(digest: digest) }) else {
            throw Problem(.unauthorized, "the bearer token is not one this server accepts", headers: challenge)
        }
        return (entry.role, entry.user)
    }

    /// The rules' names of what a write's headers carry (the command line's words: `request
    /// id`) as the header an HTTP client sent, for a problem's `field`.
    static let headerFields = ["request id": "Idempotency-Key", "source": "X-Source", "correlation id": "X-Correlation-ID",
                               "occurred at": "X-Occurred-At"]

    /// The problem document for any error a handler threw.
    static func problem(for error: any Error) -> Problem {
        switch error {
        case let problem as Problem:
            return problem
        case let error as ApplicationError:
            switch error {
            case let .invalid(field, message): return Problem(.validation, message, field: field.map { headerFields[$0] ?? $0 })
            case let .versionMismatch(_, actual): return Problem(.preconditionFailed, error.description, headers: [("ETag", ETag.text(actual))])
            case let .conflict(message): return Problem(.conflict, message)
            // The store's words name its file or its server's address: the server's log has
            // them, the client a sentence that names neither.
            case let .unavailable(message):
                var problem = Problem(.unavailable, "the store is unavailable for now (its server restarting or unreachable, or its file locked by another process); try again after Retry-After, a write with the same Idempotency-Key: one whose connection was lost as it committed may be recorded already", headers: [("Retry-After", "1")])
                problem.logNote = message
                return problem
            case let .permissionDenied(message):
                var problem = Problem(.serverError, "the store refused the operation to this server's role; the server's log has the reason (request id in X-Request-ID)")
                problem.logNote = message
                return problem
            case let .failed(message): return Problem(.serverError, message)   // evtool's own words (a seal refused: where the log fails)
            case let .requestIDReused(_, message): return Problem(.idempotencyKeyReused, message, field: "Idempotency-Key")
            case let .notFound(message): return Problem(.notFound, message, field: "user")
            }
        default:
            // The libraries' own errors (a broken rule, the store's failures) as the application words them.
            return problem(for: ApplicationError(error))
        }
    }
}
