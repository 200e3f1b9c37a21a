import EventLog
import Foundation

/// Who sends a command, from where and when: what becomes the events' ``EventMetadata``.
public struct CommandContext: Sendable, Hashable {
    /// The acting user; their stream is ``UserStream/id(for:)``.
    public var userID: String
    /// Which app server or client sent the command, e.g. `ios-app/4.2`.
    public var source: String
    /// When the action happened, by the client's clock.
    public var occurredAt: Date
    /// The client's id for this request; sending the same id again records nothing new.
    public var requestID: String?
    /// The correlation id to carry; nil uses the command's id.
    public var correlationID: String?
    /// The id of the message that caused this command; nil uses the command's id.
    public var causationID: String?

    /// Makes a context.
    public init(
        userID: String, source: String, occurredAt: Date, requestID: String? = nil,
        correlationID: String? = nil, causationID: String? = nil
    ) {
        self.userID = userID
        self.source = source
        self.occurredAt = occurredAt
        self.requestID = requestID
        self.correlationID = correlationID
        self.causationID = causationID
    }

    /// The earliest and latest client times accepted (the text form holds four-digit years).
    static let acceptedTimes = Date(timeIntervalSince1970: 0)...Timestamp.date(microseconds: 253_402_300_799_999_999)

    /// Checks the ids and the time.
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming the field and the rule broken.
    public func validate() throws {
        _ = try normalized()
    }

    /// The context as it is recorded: checked as ``validate()`` does, with the user id and the
    /// request, correlation and causation ids in Unicode normalization form C
    /// (``Rules/identifier(_:field:)``), so that one user is one stream and one request is one
    /// request however the ids were typed (a request id decides the events' ids,
    /// ``RequestIdentity``).
    /// - Throws: ``CommandError/rejected(field:rule:)`` naming the field and the rule broken.
    public func normalized() throws -> CommandContext {
        var context = self
        try Rules.checkNewIdentifier(userID, field: "user id")
        context.userID = try Rules.userID(userID)
        try Rules.checkNewIdentifier(source, field: "source")
        if let requestID {
            try Rules.checkNewIdentifier(requestID, field: "request id")
            context.requestID = try Rules.identifier(requestID, field: "request id")
        }
        if let correlationID {
            try Rules.checkNewIdentifier(correlationID, field: "correlation id")
            context.correlationID = try Rules.identifier(correlationID, field: "correlation id")
        }
        if let causationID {
            try Rules.checkNewIdentifier(causationID, field: "causation id")
            context.causationID = try Rules.identifier(causationID, field: "causation id")
        }
        guard Self.acceptedTimes.contains(occurredAt) else {
            throw CommandError.rejected(field: "occurred at", rule: "must be a time from 1970 to 9999")
        }
        return context
    }
}
