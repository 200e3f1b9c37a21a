import Foundation

/// An RFC 9457 problem document (`application/problem+json`): a stable `type` per kind of
/// failure, a title, the status, a detail for this occurrence, and the offending field.
///
/// The detail is a user-facing message: it never holds a stack trace, a SQL text, a token
/// or a bound value.
package struct Problem: Error, Sendable, Hashable {
    /// The kinds of failure, each with its `type` URI (`/problems/KIND`), title and status.
    package enum Kind: String, Sendable, CaseIterable {
        case malformedRequest = "malformed-request"
        case invalidPath = "invalid-path"
        case unauthorized
        case forbidden
        case notFound = "not-found"
        case methodNotAllowed = "method-not-allowed"
        case conflict
        case preconditionFailed = "precondition-failed"
        case lengthRequired = "length-required"
        case bodyTooLarge = "body-too-large"
        case unsupportedMediaType = "unsupported-media-type"
        case validation
        case idempotencyKeyReused = "idempotency-key-reused"
        case unavailable
        case serverError = "server-error"

        /// The HTTP status code.
        package var status: Int {
            switch self {
            case .malformedRequest, .invalidPath: return 400
            case .unauthorized: return 401
            case .forbidden: return 403
            case .notFound: return 404
            case .methodNotAllowed: return 405
            case .conflict: return 409
            case .preconditionFailed: return 412
            case .lengthRequired: return 411
            case .bodyTooLarge: return 413
            case .unsupportedMediaType: return 415
            case .validation, .idempotencyKeyReused: return 422
            case .serverError: return 500
            case .unavailable: return 503
            }
        }

        /// A short summary of the kind, the same for every occurrence.
        package var title: String {
            switch self {
            case .malformedRequest: return "The request is malformed"
            case .invalidPath: return "The path is not valid"
            case .unauthorized: return "A valid bearer token is required"
            case .forbidden: return "The token's role may not do this"
            case .notFound: return "Not found"
            case .methodNotAllowed: return "Method not allowed"
            case .conflict: return "Conflict"
            case .preconditionFailed: return "The resource is not at the version the request expected"
            case .lengthRequired: return "The request body must have a Content-Length"
            case .bodyTooLarge: return "The request body is too large"
            case .unsupportedMediaType: return "Unsupported media type"
            case .validation: return "The request breaks a rule"
            case .idempotencyKeyReused: return "The Idempotency-Key was used for another request"
            case .unavailable: return "The store is unavailable"
            case .serverError: return "The server could not answer"
            }
        }

        /// The `type` member: a URI reference relative to the server, which resolves to a page
        /// explaining the kind (``API/problemPage(_:)``, RFC 9457 §3.1.1).
        package var uri: String { "/problems/" + rawValue }

        /// What the kind means and what a client does about it, for its page.
        package var explanation: String {
            switch self {
            case .malformedRequest: return "The request could not be read: its body is not JSON, a query parameter is malformed or not one the route takes, or its framing could be read two ways (then the connection is closed). Fix the request; sending it again unchanged fails the same way."
            case .invalidPath: return "The path names no resource safely: an id holds an encoded slash or NUL, a '.' or '..' segment, a bad %-escape or invalid UTF-8."
            case .unauthorized: return "Send 'Authorization: Bearer TOKEN' with a token the server accepts (an operator makes one with 'evtool token create')."
            case .forbidden: return "The token's role may not call this route, or not for this user: app back ends record and read their users' views; a user token (a phone app's) does so for its one user only; auditors read histories, the log and proofs; admins do both and administer."
            case .notFound: return "Nothing is at this path, or what it names is not in the log (no cached details for a listing, a user with no events for a history or an audit page)."
            case .methodNotAllowed: return "The route exists with other methods; the Allow header names them."
            case .conflict: return "Other writers kept changing the user's events between the decision and the append, as often as the server tries; nothing was recorded. Send the request again."
            case .preconditionFailed: return "If-Match named another version of the user's events; the ETag header has the current one. Read again, decide again, and send with the new ETag."
            case .lengthRequired: return "The server takes a request body with a Content-Length only, not a chunked one; the connection is closed."
            case .bodyTooLarge: return "The body is larger than the server takes (its --max-body); nothing was recorded."
            case .unsupportedMediaType: return "A body must be sent as 'Content-Type: application/json'."
            case .validation: return "The request breaks a rule of the domain (the same rules and words as the command line); 'field' names what is wrong. Nothing was recorded."
            case .idempotencyKeyReused: return "The Idempotency-Key was used by another request of the user; nothing was recorded and the first request's outcome stands. A retry repeats the same request; a new request needs a new key."
            case .unavailable: return "The store cannot be reached for now. Wait for Retry-After and send the request again with the same Idempotency-Key: a write whose connection was lost as it committed is recorded once."
            case .serverError: return "The server could not answer: the store is damaged, holds an event this release cannot read, or refused the server's role. The detail says where; the server's log has the rest under the X-Request-ID."
            }
        }
    }

    /// The kind.
    package var kind: Kind
    /// What happened this time.
    package var detail: String
    /// The field or parameter at fault, when one is.
    package var field: String?
    /// Extra headers (`Allow`, `Retry-After`, `WWW-Authenticate`, `ETag`).
    package var headers: [(name: String, value: String)]
    /// For the server's log only (``HTTPResponse/logNote``): what the detail leaves out.
    package var logNote: String?

    /// Makes a problem.
    package init(_ kind: Kind, _ detail: String, field: String? = nil, headers: [(name: String, value: String)] = []) {
        self.kind = kind
        self.detail = detail
        self.field = field
        self.headers = headers
    }

    package static func == (left: Problem, right: Problem) -> Bool {
        left.kind == right.kind && left.detail == right.detail && left.field == right.field
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(detail)
        hasher.combine(field)
    }

    /// The problem as a response.
    package var response: HTTPResponse {
        var writer = ResponseWriter()
        writer.beginObject()
        writer.key("type"); writer.string(kind.uri)
        writer.key("title"); writer.string(kind.title)
        writer.key("status"); writer.number(kind.status)
        writer.key("detail"); writer.string(detail)
        if let field { writer.key("field"); writer.string(field) }
        writer.endObject()
        var response = HTTPResponse(status: kind.status, headers: [("Content-Type", "application/problem+json")] + headers, body: writer.bytes)
        response.logNote = logNote
        return response
    }
}
