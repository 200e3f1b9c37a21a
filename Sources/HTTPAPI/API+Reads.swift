import EventLog
import EvtoolKit
import Foundation
import JSONKit
import Projections
import Transfer

extension API {
    func favorites(_ match: RouteMatch) throws -> HTTPResponse { try userView(Views.favorites, match) }
    func recentSearches(_ match: RouteMatch) throws -> HTTPResponse { try userView(Views.recentSearches, match) }
    func recentlyViewed(_ match: RouteMatch) throws -> HTTPResponse { try userView(Views.recentlyViewed, match) }

    /// A user's view document (`{"items":[…]}`, empty when the user has none), with the
    /// stream version as its ETag; `as-of` computes it as it was then, from the log, and has
    /// no ETag: a past document is not the resource a write's `If-Match` is checked against.
    /// A current read is answered from the server's view memory when it holds it
    /// (``Application/currentViewAnswer(_:user:)``), with the same bytes and ETag.
    func userView<P: Projection>(_ projection: P, _ match: RouteMatch) throws -> HTTPResponse {
        let user = match.parameter("user")
        if let asOf = try asOf(match) {
            let view = try application.view(projection, user: user, asOf: asOf)
            return .json(200, view.document.map { Array($0.jsonData) } ?? Self.emptyView)
        }
        let answer = try application.currentViewAnswer(projection, user: user)
        return .json(200, answer.bytes ?? Self.emptyView, headers: [("ETag", ETag.text(answer.version))])
    }

    /// The body of a view with no document for the user.
    static let emptyView = Array(#"{"items":[]}"#.utf8)

    func listingDetails(_ match: RouteMatch) throws -> HTTPResponse {
        let listing = match.parameter("listing")
        let bytes: [UInt8]?
        if let asOf = try asOf(match) {
            bytes = try application.details(listing: listing, asOf: asOf).map { Array($0.jsonData) }
        } else {
            bytes = try application.currentDetailsAnswer(listing: listing).bytes
        }
        guard let bytes else {
            throw Problem(.notFound, "no cached details for listing '\(listing)': no user has opened it yet")
        }
        return .json(200, bytes)
    }

    func userListing(_ match: RouteMatch) throws -> HTTPResponse {
        let answer = try application.currentListingAnswer(match.parameter("listing"), for: match.parameter("user")) { page in
            var writer = ResponseWriter()
            writer.beginObject()
            writer.key("listingID"); writer.string(page.listingID)
            writer.key("favorite"); writer.bool(page.isFavorite)
            writer.key("details")
            if let details = page.details { writer.raw(details.jsonData) } else { writer.null() }
            writer.endObject()
            return writer.bytes
        }
        return .json(200, answer.bytes ?? [], headers: [("ETag", ETag.text(answer.version))])
    }

    func history(_ match: RouteMatch) throws -> HTTPResponse {
        let user = match.parameter("user")
        let types = Set(try match.queryValues("type"))
        let filter = History.Filter(types: types, since: try time(match, "since"), until: try time(match, "until"), asOf: try asOf(match))
        let after = try match.integer("after", default: 0, in: 0...Int64.max)
        let limit = try match.integer("limit", default: 100, in: 1...limits.maximumPageSize)
        let page = try application.history(user: user, filter: filter, after: after, limit: Int(limit))
        var writer = ResponseWriter()
        writer.beginObject()
        writer.key("items"); writer.beginArray()
        for entry in page.entries { LogRecord.write(entry, to: &writer) }
        writer.endArray()
        writer.key("nextAfter")
        if let next = page.nextAfter { writer.number(next) } else { writer.null() }
        writer.endObject()
        let link = page.nextAfter.map { Self.nextLink(match, after: $0) }.map { [$0] } ?? []
        // As of a point, the history is a past one: no ETag (see userView).
        if filter.asOf != nil { return .json(200, writer.bytes, headers: link) }
        return .json(200, writer.bytes, headers: [("ETag", ETag.text(try application.streamVersion(user: user)))] + link)
    }

    func log(_ match: RouteMatch) throws -> HTTPResponse {
        let after = try match.integer("after", default: 0, in: 0...Int64.max)
        let limit = try match.integer("limit", default: 100, in: 1...limits.maximumPageSize)
        let events = try application.log(after: after, limit: Int(limit))
        var writer = ResponseWriter()
        writer.beginObject()
        writer.key("events"); writer.beginArray()
        for event in events { LogRecord.write(event, to: &writer) }
        writer.endArray()
        writer.key("nextAfter"); writer.number(events.last?.position ?? after)
        writer.endObject()
        // A full page may have more after it; a shorter one ends at the head (nextAfter is
        // where to poll from as the log grows).
        let link = events.count == Int(limit) ? [Self.nextLink(match, after: events.last?.position ?? after)] : []
        return .json(200, writer.bytes, headers: link)
    }

    func stats(_ match: RouteMatch) throws -> HTTPResponse {
        let statistics = try application.statistics()
        var writer = ResponseWriter()
        statistics.write(to: &writer, size: .some(storeSize()))
        return .json(200, writer.bytes)
    }

    func health(_ match: RouteMatch) throws -> HTTPResponse {
        .json(200, Array(#"{"status":"ok"}"#.utf8))
    }

    /// The page a problem document's `type` resolves to: the kind's title, status and what it
    /// means, as a small HTML page (RFC 9457 §3.1.1: a type URI should resolve to
    /// documentation for people).
    func problemPage(_ match: RouteMatch) throws -> HTTPResponse {
        let name = match.parameter("kind")
        guard let kind = Problem.Kind(rawValue: name) else {
            throw Problem(.notFound, "no problem kind '\(name)'; the kinds: \(Problem.Kind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let escape = { (text: String) in
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
                .replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "'", with: "&#39;")
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>\(escape(kind.title)) (\(kind.status))</title></head>
            <body><h1>\(escape(kind.title))</h1>
            <p>HTTP status <strong>\(kind.status)</strong>, problem type <code>\(escape(kind.uri))</code> (an RFC 9457 problem document, <code>application/problem+json</code>).</p>
            <p>\(escape(kind.explanation))</p>
            <p>The document's <code>detail</code> says what happened this time, and <code>field</code> names the member, parameter or header at fault when one is.</p>
            </body></html>

            """
        return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "max-age=86400"),
                                                   ("Content-Security-Policy", "default-src 'none'"), ("X-Content-Type-Options", "nosniff")],
                            body: Array(html.utf8))
    }

    func ready(_ match: RouteMatch) throws -> HTTPResponse {
        let head = try application.headPosition()
        return .json(200, Array(#"{"status":"ready","head":\#(head)}"#.utf8))
    }

    /// The `Link` header (RFC 8288) to the next page of a paged read: the request's own path
    /// and query, `after` replaced by `next`.
    static func nextLink(_ match: RouteMatch, after next: Int64) -> (name: String, value: String) {
        let kept = match.request.query.filter { (try? PathSegments.decodeQuery($0.name, name: $0.name)) != "after" }
        let query = (kept.map { $0.name + "=" + $0.value } + ["after=\(next)"]).joined(separator: "&")
        return ("Link", "<\(match.request.path)?\(query)>; rel=\"next\"")
    }

    /// `as-of=POSITION|TIME`, or nil.
    func asOf(_ match: RouteMatch) throws(Problem) -> AsOf? {
        guard let text = try match.query("as-of") else { return nil }
        guard let point = TimeText.asOf(text) else {
            throw Problem(.malformedRequest, "'as-of' must be a position (a whole number) or a time like 2026-03-01T10:00:00Z, not '\(text)'", field: "as-of")
        }
        return point
    }

    /// A time query parameter, or nil.
    func time(_ match: RouteMatch, _ name: String) throws(Problem) -> Date? {
        guard let text = try match.query(name) else { return nil }
        guard let date = TimeText.parse(text) else {
            throw Problem(.malformedRequest, "'\(name)' must be a time like 2026-03-01 or 2026-03-01T10:00:00Z, not '\(text)'", field: name)
        }
        return date
    }
}
