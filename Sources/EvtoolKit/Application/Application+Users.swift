import Commands
import EventLog
import Foundation

extension Application {
    /// The user as recorded (``UserStream/existing(typed:in:)``) when the log holds events of
    /// theirs: the one rule of the faces that show one user's record (history, the audit
    /// page), so that a mistyped user is not shown as an empty record. A user's views are
    /// read without it: a user who has done nothing yet has empty views.
    /// - Throws: ``ApplicationError/notFound(_:)`` (HTTP 404, exit 65) for a user with no
    ///   events; ``ApplicationError/invalid(field:message:)`` for an id the rules refuse.
    public static func userWithEvents(typed: String, in store: any EventStore) throws(ApplicationError) -> String {
        do {
            let user = try UserStream.existing(typed: typed, in: store)
            guard try store.version(of: UserStream.id(for: user)) > 0 else {
                throw ApplicationError.notFound("user '\(user)' has no events in this log (a user appears with their first recorded action)")
            }
            return user
        } catch let error as ApplicationError {
            throw error
        } catch {
            throw ApplicationError(error)
        }
    }

    /// ``userWithEvents(typed:in:)`` on this application's store.
    public func userWithEvents(typed: String) throws(ApplicationError) -> String {
        try Self.userWithEvents(typed: typed, in: store)
    }
}
