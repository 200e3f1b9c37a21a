import Commands
import EventLog
import Foundation
import Projections

/// The application's calls in the domain's own terms, for a face that words and maps the
/// libraries' errors itself (the command line: `EventStoreError`, `CommandError` … each to its
/// exit code and message). The typed calls (``record(_:context:requiredVersion:)``,
/// ``view(_:user:asOf:)`` …) answer the same through ``ApplicationError``.
extension Application {
    /// Records one user action through the application's runner (load the user's stream,
    /// decide, append with the expected version, retry) and answers with the domain's outcome:
    /// a request id already recorded is `.unchanged(.alreadyRecorded)`, nothing recorded again.
    /// - Throws: `CommandError` for a broken rule or lost races; the store's errors.
    public func perform(_ command: UserCommand, context: CommandContext) throws -> CommandOutcome {
        try runner.handle(command, context: context)
    }

    /// The user id as recorded for a user id as a face received it (a path segment, a query
    /// parameter, a request body, a command-line argument, a library call): the identity rule
    /// every read, erasure and version lookup of the application applies before it names a
    /// stream, a view document or a key of the view memory (``UserStream/existing(typed:in:)``:
    /// the id in NFC, `josé` typed in NFD or NFC is one user; an id with an invisible character
    /// is refused; an id recorded before the rule is found as it was recorded). Writes take
    /// the same NFC form in the command runner (``CommandContext/normalized()``).
    /// Cost: nothing for an id in NFC; otherwise one or two version lookups.
    /// - Throws: `CommandError` when the id is malformed and no such stream exists.
    public func existingUser(typed user: String) throws -> String {
        try UserStream.existing(typed: user, in: store)
    }

    /// A listing id as recorded, for a listing id as a face received it: checked and in NFC
    /// (``Rules/identifier(_:field:)``), the form the rules record and the views file.
    /// - Throws: `CommandError` for a malformed id.
    public func recordedListing(_ listing: String) throws -> String {
        try Rules.identifier(listing, field: "listing id")
    }

    /// The document of `key` in `projection` (a user id for a user-keyed view, a listing id for
    /// cached details): now, after catching that view up to the head (read-your-writes), or as
    /// of `asOf` by time travel from the nearest snapshot (kept states in ``timeTravel``); from the
    /// read store when there is one (``storeForReading()``, ``currentDocument(_:key:)``). Nil
    /// when the key has no document. The key is taken as typed: a user id by
    /// ``existingUser(typed:)``, a listing id by ``recordedListing(_:)``.
    public func document<P: Projection>(_ projection: P, key typed: String, asOf: AsOf? = nil) throws -> P.Document? {
        let key = projection.isKeyedByUser ? try existingUser(typed: typed) : try recordedListing(typed)
        if let asOf {
            try checkWithinLog(asOf)
            return try TimeTravel.document(projection, key: key, asOf: asOf, in: try storeForReading(), cache: timeTravel)
        }
        return try currentDocument(projection, key: key)
    }

    /// Calls `body` with each of the user's history entries that pass `filter`, oldest first,
    /// reading the user's stream a batch at a time (from the read store when there is one).
    /// `user` is taken as typed (``existingUser(typed:)``).
    public func forEachHistoryEntry(of user: String, filter: History.Filter = History.Filter(),
                                    _ body: (History.Entry) throws -> Void) throws {
        try checkWithinLog(filter.asOf)
        try History.forEachEntry(of: existingUser(typed: user), in: try storeForReading(), filter: filter, body)
    }

    /// Brings every view up to the head of the log from its checkpoint.
    /// - Returns: the head position the views reached.
    @discardableResult
    public func catchUpViews() throws -> Int64 {
        try projector.catchUp()
    }

    /// The store's counts (reads the whole log) and the views' checkpoints, as
    /// ``statistics()`` with the store's own errors (from the read store when there is one).
    public func storeStatistics() throws -> StoreStatistics {
        try StoreStatistics.of(try storeForReading())
    }
}
