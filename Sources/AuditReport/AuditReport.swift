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
        /// Where the page's links lead beyond itself (a served page: the server's routes,
        /// relative to the page); ``Links/none`` for a saved page, whose links stay within it.
        package var links: Links = .none

        /// Makes the options: `storeDescription` names the store on the page, `asOf` folds the views as of that point, `outside` is a checkpoint (and key) to check the seal against.
        package init(storeDescription: String, asOf: AsOf? = nil, now: Date = Date(), outside: SealCheck.Outside? = nil) {
            self.storeDescription = storeDescription
            self.asOf = asOf
            self.now = now
            self.outside = outside
        }
    }

    /// Where a page's links lead beyond the page. A saved page (`evtool report --out`) has no
    /// other page beside it, so it links only within itself: positions to their rows, listings
    /// to the user's event that shows them. A served page (`evtool serve`'s `/v1/audit` routes)
    /// also links to the server's routes, each given here relative to the page's own address.
    package struct Links: Sendable {
        /// A user's page, by user id.
        package var user: (@Sendable (String) -> String)?
        /// The log at a position (the event there), for positions the page does not hold.
        package var position: (@Sendable (Int64) -> String)?
        /// A listing's cached details, by listing id; nil from the closure: none to link to.
        package var listing: (@Sendable (String) -> String?)?
        /// The store overview, from a user's page.
        package var overview: String?

        /// Makes the links.
        package init(user: (@Sendable (String) -> String)? = nil, position: (@Sendable (Int64) -> String)? = nil,
                     listing: (@Sendable (String) -> String?)? = nil, overview: String? = nil) {
            self.user = user
            self.position = position
            self.listing = listing
            self.overview = overview
        }

        /// No links beyond the page (a saved page).
        package static let none = Links()
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
                              outside: options.outside).html(links: options.links)
    }

    /// The Content-Security-Policy every page carries in its `<meta>` tag (a server sends it as a header too).
    package static var contentSecurityPolicy: String { HTML.contentSecurityPolicy }

    /// The page of the whole store: events per day by type, users, listings, seals, views, erasures.
    /// Cost: one streaming pass over the log.
    package static func overviewPage(store: any EventStore, options: Options) throws -> String {
        try StoreOverview.gather(in: store, storeDescription: options.storeDescription, now: options.now).html(links: options.links)
    }
}
