import AuditReport
import Commands
import EventLog
import Foundation

extension API {
    /// The audit report pages, for auditors and admins: the same HTML `evtool report` writes,
    /// made by the same ``AuditReport`` functions (docs/explanation/audit.md, docs/reference/http.md).
    static let auditRoutes: [Route] = [
        Route(method: "GET", template: "/v1/audit/users/{user}", roles: [.auditor, .admin], name: "getUserAuditReport", handler: { try $0.userAuditReport($1) }),
        Route(method: "GET", template: "/v1/audit", roles: [.auditor, .admin], name: "getStoreAuditReport", handler: { try $0.storeAuditReport($1) }),
    ]

    /// A user's audit report (`as-of=POSITION|TIME` for the page as of that point).
    func userAuditReport(_ match: RouteMatch) throws -> HTTPResponse {
        let asOf = try asOf(match)
        try application.checkWithinLog(asOf)
        let user = try application.userWithEvents(typed: match.parameter("user"))
        let options = AuditReport.Options(storeDescription: storeDescription, asOf: asOf)
        return Self.page(try AuditReport.userPage(user: user, store: application.store, options: options))
    }

    /// The store overview (one pass over the log).
    func storeAuditReport(_ match: RouteMatch) throws -> HTTPResponse {
        if try match.query("as-of") != nil {
            throw Problem(.malformedRequest, "'as-of' goes with a user's page (/v1/audit/users/{user}), not the store overview", field: "as-of")
        }
        var options = AuditReport.Options(storeDescription: storeDescription)
        // The overview is served at /v1/audit: its users' pages are at audit/users/{user} beside it.
        options.userLink = { "audit/users/" + PathSegments.encoded($0) }
        return Self.page(try AuditReport.overviewPage(store: application.store, options: options))
    }

    /// An HTML page with the page's own Content-Security-Policy as a response header too.
    static func page(_ html: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Content-Security-Policy", AuditReport.contentSecurityPolicy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("Cache-Control", "no-store"),
        ], body: Array(html.utf8))
    }
}
