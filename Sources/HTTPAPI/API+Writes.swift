import Commands
import EventLog
import EvtoolKit
import Foundation
import Transfer

extension API {
    func recordSearch(_ match: RouteMatch) throws -> HTTPResponse {
        try record(try searchCommand(match), match)
    }

    func addFavorite(_ match: RouteMatch) throws -> HTTPResponse {
        try record(try favoriteCommand(match), match)
    }

    func removeFavorite(_ match: RouteMatch) throws -> HTTPResponse {
        try record(.unfavorite(listingID: match.parameter("listing")), match)
    }

    func recordView(_ match: RouteMatch) throws -> HTTPResponse {
        try record(try viewCommand(match), match)
    }

    func searchCommand(_ match: RouteMatch) throws -> UserCommand {
        let body = try RequestBodies.decode(RequestBodies.Search.self, from: match.request, what: "search", operation: "recordSearch")
        return .search(try body.searched())
    }

    func favoriteCommand(_ match: RouteMatch) throws -> UserCommand {
        let summary = try RequestBodies.decode(ListingSummary.self, from: match.request, what: "summary", operation: "addFavorite")
        return .favorite(listingID: match.parameter("listing"), summary: summary)
    }

    func viewCommand(_ match: RouteMatch) throws -> UserCommand {
        let details = try RequestBodies.decode(ListingDetails.Submitted.self, from: match.request, what: "details", operation: "recordView").details
        return .viewDetails(listingID: details.listingID, details: details)
    }

    /// The user command a recording route's request asks for (its body decoded); nil for a
    /// route that records no user action.
    func command(route name: String, _ match: RouteMatch) throws -> UserCommand? {
        switch name {
        case "recordSearch": return try searchCommand(match)
        case "addFavorite": return try favoriteCommand(match)
        case "removeFavorite": return .unfavorite(listingID: match.parameter("listing"))
        case "recordView": return try viewCommand(match)
        default: return nil
        }
    }

    /// Records a command for the path's user: `Idempotency-Key` is its request id, `If-Match`
    /// the version it must be appended at; 201 when events were recorded, 200 when nothing changed.
    func record(_ command: UserCommand, _ match: RouteMatch) throws -> HTTPResponse {
        let write = try prepare(command, match)
        return try recordedResponse(application.record(command, context: write.context, requiredVersion: try requiredVersion(write)), command: command)
    }

    /// The version a write must be appended at: the one its `If-Match` names, or for the
    /// forms that need the stream's version now (``PreparedWrite/readsFirst``) that version,
    /// read, when the precondition holds (for a list that does not hold it, one version of the
    /// list, which the append then refuses; 412 with the current ETag for `*` on a user with no
    /// events and for tags that name no version); nil without `If-Match`. The append is made at
    /// exactly that version, so a write that lands in between is still a 412.
    func requiredVersion(_ write: PreparedWrite) throws -> Int64? {
        guard let (precondition, header) = write.readsFirst else { return write.requiredVersion }
        // The stream the write goes to: the user id as the runner records it (NFC).
        let version = try application.streamVersion(user: Rules.userID(write.user))
        let current = [(name: "ETag", value: ETag.text(version))]
        switch precondition {
        case .exists:
            guard version > 0 else { throw Problem(.preconditionFailed, "If-Match '*' but the user has no events yet", headers: current) }
        case .versions(let versions):
            // Not one of them: the append is made at one the list names, so the command runner
            // answers as for one version, replaying a retry of a request it recorded (its
            // Idempotency-Key) before it refuses the version with a 412.
            guard versions.contains(version) else { return versions[versions.count - 1] }
        case .never:
            throw Problem(.preconditionFailed, "If-Match '\(header)' names no version of this user's events (send the ETag of a read: now \(ETag.text(version)))", headers: current)
        }
        return version
    }

    /// A write's context from its headers, and the version `If-Match` names (`*` is resolved
    /// by ``requiredVersion(_:)``, which reads the stream).
    func prepare(_ command: UserCommand, _ match: RouteMatch) throws -> PreparedWrite {
        let request = match.request
        let user = match.parameter("user")
        // A write's condition is If-Match only: If-None-Match ("create only if absent") is not
        // evaluated on writes, so it is refused rather than ignored.
        if request.header("if-none-match") != nil {
            throw Problem(.malformedRequest, "If-None-Match is not taken on a write; send If-Match with the ETag of a read (or '*' for a user with events)", field: "If-None-Match")
        }
        var occurredAt = Timestamp.now()
        if let text = request.header("x-occurred-at") {
            guard let date = TimeText.parse(text) else {
                throw Problem(.validation, "X-Occurred-At must be a time like 2026-03-01T10:00:00Z, not '\(text)'", field: "X-Occurred-At")
            }
            occurredAt = date
        }
        let context = CommandContext(userID: user, source: request.header("x-source") ?? "evtool-http", occurredAt: occurredAt,
                                     requestID: request.header("idempotency-key"), correlationID: request.header("x-correlation-id"))
        var required: Int64?
        var readsFirst: (precondition: ETag.Precondition, header: String)?
        if let ifMatch = request.header("if-match") {
            let precondition = ETag.precondition(ifMatch: ifMatch)
            if case .versions(let versions) = precondition, versions.count == 1 { required = versions[0] } else { readsFirst = (precondition, ifMatch) }
        }
        return PreparedWrite(command: command, context: context, requiredVersion: required, readsFirst: readsFirst, user: user)
    }

    /// The answer to a recorded (201) or unchanged (200) action; its `user` is the id as
    /// recorded (NFC), whatever spelling the path used; a 201's `Location` is the view the
    /// action changed, which the writer's role may read (``viewChanged(by:user:)``).
    func recordedResponse(_ result: RecordResult, command: UserCommand) -> HTTPResponse {
        if result.isRecorded { metrics.count(result.isReplay ? .idempotentReplay : .append) }
        var writer = ResponseWriter()
        result.write(to: &writer)
        var headers = [(name: "ETag", value: ETag.text(result.streamVersion))]
        if result.isReplay { headers.append(("Idempotent-Replayed", "true")) }
        if result.isRecorded { headers.append(("Location", Self.viewChanged(by: command, user: result.user))) }
        return .json(result.isRecorded ? 201 : 200, writer.bytes, headers: headers)
    }

    /// The path of the resource a user action changes, as the user's app reads it: the recent
    /// searches for a search, the listing's page as the user sees it (favorite or not, its
    /// details) for the others.
    static func viewChanged(by command: UserCommand, user: String) -> String {
        let base = "/v1/users/" + PathSegments.encoded(user)
        switch command {
        case .search: return base + "/recent-searches"
        case let .favorite(listingID, _), let .unfavorite(listingID): return base + "/listings/" + PathSegments.encoded(listingID)
        case let .viewDetails(listingID, _): return base + "/listings/" + PathSegments.encoded(listingID)
        }
    }
}
