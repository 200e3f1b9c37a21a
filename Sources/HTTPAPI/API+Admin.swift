import Audit
import EventLog
import EvtoolKit
import Foundation

/// The administrator's routes (`admin` role only): rebuild the views, seal the log, erase a
/// user. Each calls the application library, answers with what it did, and writes one audit
/// line (who, what, the outcome) through ``API/auditLog``, whether it succeeded or not.
extension API {
    /// The `/v1/admin` routes, listed after the others in ``routes`` and the OpenAPI document.
    static let adminRoutes: [Route] = [
        Route(method: "POST", template: "/v1/admin/rebuild", roles: [.admin], name: "adminRebuild", handler: { try $0.adminRebuild($1) }),
        Route(method: "POST", template: "/v1/admin/seal", roles: [.admin], name: "adminSeal", handler: { try $0.adminSeal($1) }),
        Route(method: "POST", template: "/v1/admin/users/{user}/forget", roles: [.admin], name: "adminForget", handler: { try $0.adminForget($1) }),
    ]

    /// `{"views": [NAME…]}`, all of it optional (an empty body rebuilds every view).
    struct RebuildBody: Decodable {
        var views: [String]?
    }

    /// `{"reason": TEXT, "by": OPERATOR}`; `by` defaults to the token's name.
    struct ForgetBody: Decodable {
        var reason: String
        var by: String?
    }

    func adminRebuild(_ match: RouteMatch) throws -> HTTPResponse {
        let body = match.request.body.isEmpty ? RebuildBody() : try RequestBodies.decode(RebuildBody.self, from: match.request, what: "rebuild", operation: "adminRebuild")
        if let views = body.views {
            guard !views.isEmpty else { throw Problem(.validation, "'views' names no view: name at least one, or send no body to rebuild them all", field: "views") }
            if let twice = Dictionary(grouping: views, by: { $0 }).first(where: { $0.value.count > 1 })?.key {
                throw Problem(.validation, "'views' names '\(twice)' more than once", field: "views")
            }
        }
        let result = try audited(match, "rebuild \(body.views?.joined(separator: ",") ?? "all views")") {
            try application.rebuildViews(body.views)
        } describe: { result in
            "rebuilt \(result.views.map { "\($0.name) (\($0.documents.counted("document")))" }.joined(separator: ", ")) through position \(result.head)"
        }
        var writer = ResponseWriter()
        result.write(to: &writer)
        return .json(200, writer.bytes)
    }

    func adminSeal(_ match: RouteMatch) throws -> HTTPResponse {
        let result = try audited(match, "seal") {
            try application.seal(signingKey: sealKey)
        } describe: { result in
            "sealed: seal \(result.seal.number) at position \(result.seal.position) (\(result.seal.events.counted("event")) in \(result.seal.streams.counted("stream"))) \(result.seal.hash)"
                + (result.isSigned ? ", checkpoint signed" : "")
        }
        var writer = ResponseWriter()
        result.write(to: &writer)
        return .json(201, writer.bytes)
    }

    func adminForget(_ match: RouteMatch) throws -> HTTPResponse {
        let user = match.parameter("user")
        let body = try RequestBodies.decode(ForgetBody.self, from: match.request, what: "erasure", operation: "adminForget")
        let operatorName = body.by ?? callerName(match.request) ?? "admin"
        let result = try audited(match, "forget user '\(RequestLogText.printable(user))' by '\(RequestLogText.printable(operatorName))'") {
            guard try application.streamVersion(user: user) > 0 else {
                throw Problem(.notFound, "user '\(user)' has no events to erase")
            }
            return try application.forget(user: user, reason: body.reason, operatorName: operatorName)
        } describe: { result in
            "erased \(result.outcome.erasedEvents.counted("event")) (UserErased at position \(result.outcome.position)); views rebuilt through \(result.rebuiltThrough)"
        }
        var writer = ResponseWriter()
        result.write(to: &writer)
        return .json(200, writer.bytes)
    }

    /// Runs an admin operation and writes its audit line: who (the token's name and role),
    /// what, and what came of it (the outcome, or the problem's status and detail).
    func audited<T>(_ match: RouteMatch, _ what: String, _ body: () throws -> T, describe: (T) -> String) throws -> T {
        let who = "\(match.role.rawValue) '\(RequestLogText.printable(callerName(match.request) ?? "-"))'"
        do {
            let result = try body()
            auditLog("audit: \(Timestamp.format(Timestamp.now())) \(who) \(what): \(describe(result))\n")
            return result
        } catch {
            let problem = Self.problem(for: error)
            auditLog("audit: \(Timestamp.format(Timestamp.now())) \(who) \(what): refused \(problem.kind.status) \(problem.detail)\n")
            throw problem
        }
    }

    /// The name the caller's token has in the tokens file (nil without authentication or name).
    func callerName(_ request: HTTPRequest) -> String? {
        guard let tokens, let header = request.header("authorization") else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2 else { return nil }
        guard let name = tokens.entry(of: parts[1].trimmingCharacters(in: .whitespaces))?.name, !name.isEmpty else { return nil }
        return name
    }
}

/// Text for audit lines: control characters and non-ASCII bytes as `%HH`, so an id cannot
/// forge a line.
enum RequestLogText {
    static func printable(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte < 0x20 || byte >= 0x7F {
                out += String(format: "%%%02X", byte)
            } else {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }
}
