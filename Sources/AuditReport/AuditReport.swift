import Commands
import EventLog
import Foundation
import Projections

/// The audit report pages: one self-contained HTML page per user and one for the whole
/// store, made from any ``EventStore`` (the CLI's `evtool report` and the HTTP server's
/// `/audit` routes call these same functions).
package enum AuditReport {
    /// What to make a page from.
    package struct Options: Sendable {
        /// How the page names the store (a path or URL without its password).
        package var storeDescription: String
        /// The point in the log (the whole log when nil); user pages only.
        package var asOf: AsOf?
        /// The time the page says it was made.
        package var now: Date
        /// A checkpoint (and the key to check its signature) kept outside the store; user pages only.
        package var outside: SealCheck.Outside?
        /// Where a user's page is, for the overview's links to them (a served page: the server's
        /// route, relative to the overview); nil: users are named without links (a saved page).
        package var userLink: (@Sendable (String) -> String)?

        /// Makes the options: `storeDescription` names the store on the page, `asOf` folds the views as of that point, `outside` is a checkpoint (and key) to check the seal against.
        package init(storeDescription: String, asOf: AsOf? = nil, now: Date = Date(), outside: SealCheck.Outside? = nil) {
            self.storeDescription = storeDescription
            self.asOf = asOf
            self.now = now
            self.outside = outside
        }
    }

    /// The page of one user: who and what, timeline, favorites over time, lists, searches, trust.
    /// `user` is taken as typed: the page is of the stream ``Commands/UserStream/existing(typed:in:)``
    /// names (`josé` in NFD or NFC is one user).
    /// Cost: one read of the user's stream, one verification of it, the seals and erasures.
    /// - Throws: `CommandError` for a malformed user id; the store's errors.
    package static func userPage(user typed: String, store: any EventStore, options: Options) throws -> String {
        // The user as typed names the stream the identity rule names (NFC; one recorded before the rule as recorded).
        let user = try UserStream.existing(typed: typed, in: store)
        return try UserReport.gather(user: user, in: store, asOf: options.asOf, storeDescription: options.storeDescription, now: options.now,
                              outside: options.outside).html
    }

    /// The Content-Security-Policy every page carries in its `<meta>` tag (a server sends it as a header too).
    package static var contentSecurityPolicy: String { HTML.contentSecurityPolicy }

    /// The page of the whole store: events per day by type, users, listings, seals, views, erasures.
    /// Cost: one streaming pass over the log.
    package static func overviewPage(store: any EventStore, options: Options) throws -> String {
        try StoreOverview.gather(in: store, storeDescription: options.storeDescription, now: options.now).html(userLink: options.userLink)
    }
}
