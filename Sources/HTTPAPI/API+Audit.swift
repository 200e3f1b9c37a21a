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
        var options = AuditReport.Options(storeDescription: storeDescription, asOf: asOf)
        // The page is served at /v1/audit/users/{user}: the API's routes are two segments up.
        options.links = auditLinks(prefix: "../../")
        return Self.page(try AuditReport.userPage(user: user, store: application.store, options: options))
    }

    /// The store overview (one pass over the log).
    func storeAuditReport(_ match: RouteMatch) throws -> HTTPResponse {
        if try match.query("as-of") != nil {
            throw Problem(.malformedRequest, "'as-of' goes with a user's page (/v1/audit/users/{user}), not the store overview", field: "as-of")
        }
        var options = AuditReport.Options(storeDescription: storeDescription)
        // The overview is served at /v1/audit: the API's routes (audit/users/{user} …) are beside it.
        options.links = auditLinks(prefix: "")
        return Self.page(try AuditReport.overviewPage(store: application.store, options: options))
    }

    /// Where a served audit page links, relative to a page `prefix` below /v1/: a user's page,
    /// the log at a position (GET /v1/log, the event there), a listing's cached details when the
    /// view holds them (else no link), and the store overview.
    func auditLinks(prefix: String) -> AuditReport.Links {
        let application = application
        return AuditReport.Links(
            user: { prefix + "audit/users/" + PathSegments.encoded($0) },
            position: { prefix + "log?after=\(max(0, $0 - 1))&limit=1" },
            listing: { listing in
                (try? application.currentDetailsAnswer(listing: listing).bytes) != nil ? prefix + "listings/" + PathSegments.encoded(listing) + "/details" : nil
            },
            overview: prefix + "audit")
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
