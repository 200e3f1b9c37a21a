import Foundation

/// An RFC 9457 problem document, as the server sends it with an error status.
public struct Problem: Hashable, Sendable, CustomStringConvertible {
    /// The problem's kind, e.g. `/problems/validation`.
    public var type: String
    /// A short title of the kind.
    public var title: String
    /// The HTTP status.
    public var status: Int
    /// What went wrong this time, in words an app can show.
    public var detail: String
    /// The member, parameter or header at fault, when there is one.
    public var field: String?

    /// Makes a problem.
    public init(type: String, title: String, status: Int, detail: String, field: String? = nil) {
        self.type = type
        self.title = title
        self.status = status
        self.detail = detail
        self.field = field
    }

    /// Reads a problem document; a body that is none becomes a problem naming the status.
    init(status: Int, body: Data) {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
        self.init(type: object["type"] as? String ?? "about:blank",
                  title: object["title"] as? String ?? "HTTP \(status)",
                  status: object["status"] as? Int ?? status,
                  detail: object["detail"] as? String ?? "the server answered \(status)",
                  field: object["field"] as? String)
    }

    /// The document's JSON, as the client keeps it.
    var json: Data {
        var object: [String: Any] = ["type": type, "title": title, "status": status, "detail": detail]
        if let field { object["field"] = field }
        return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
    }

    /// `detail`, with the field at fault when there is one.
    public var description: String { field.map { "\(detail) (\($0))" } ?? detail }
}

/// What can go wrong in the client, each in words an app can show.
public enum ClientError: Error, Hashable, Sendable, CustomStringConvertible, LocalizedError {
    /// The action is malformed before it is even recorded (the field named).
    case invalidAction(field: String, message: String)
    /// The client's own file could not be opened, read or written.
    case storage(String)
    /// The server could not be reached (the device is offline, or the server is down).
    case unreachable(String)
    /// The token was refused (401) or may not do this (403: another role's token, or a user
    /// token made for another user than the client's): sign in again.
    case unauthorized(Problem)
    /// The server answered with an error the client does not retry.
    case server(Problem)

    /// What happened, for the user.
    public var description: String {
        switch self {
        case let .invalidAction(field, message): return "\(message) (\(field))"
        case let .storage(message): return "the app's local storage failed: \(message)"
        case let .unreachable(message): return "the server cannot be reached: \(message)"
        case let .unauthorized(problem): return "not signed in: \(problem.detail)"
        case let .server(problem): return "the server refused: \(problem)"
        }
    }

    /// ``description``, for `localizedDescription`.
    public var errorDescription: String? { description }
}
