import Foundation

/// An RFC 9457 problem document (`application/problem+json`): a stable `type` per kind of
/// failure, a title, the status, a detail for this occurrence, and the offending field.
///
/// The detail is a user-facing message: it never holds a stack trace, a SQL text, a token
/// or a bound value.
public struct Problem: Error, Sendable, Hashable {
    /// The kinds of failure, each with its `type` URI (`/problems/KIND`), title and status.
    public enum Kind: String, Sendable, CaseIterable {
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
        public var status: Int {
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
        public var title: String {
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

        /// The `type` member: a URI reference relative to the server.
        public var uri: String { "/problems/" + rawValue }
    }

    /// The kind.
    public var kind: Kind
    /// What happened this time.
    public var detail: String
    /// The field or parameter at fault, when one is.
    public var field: String?
    /// Extra headers (`Allow`, `Retry-After`, `WWW-Authenticate`, `ETag`).
    public var headers: [(name: String, value: String)]
    /// For the server's log only (``HTTPResponse/logNote``): what the detail leaves out.
    public var logNote: String?

    /// Makes a problem.
    public init(_ kind: Kind, _ detail: String, field: String? = nil, headers: [(name: String, value: String)] = []) {
        self.kind = kind
        self.detail = detail
        self.field = field
        self.headers = headers
    }

    public static func == (left: Problem, right: Problem) -> Bool {
        left.kind == right.kind && left.detail == right.detail && left.field == right.field
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(detail)
        hasher.combine(field)
    }

    /// The problem as a response.
    public var response: HTTPResponse {
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
