import Commands
import EventLog
import Foundation
import Projections

/// Current reads through ``Application/viewMemory``: answered from memory when it holds the
/// answer (no store round trip), else read from the store as ``Application/view(_:user:asOf:)``
/// reads it and filed for the next read. With the memory off they read exactly as
/// ``Application/view(_:user:asOf:)`` and ``Application/details(listing:asOf:)`` do.
extension Application {
    /// A user view's current document as its JSON bytes (nil: the user has none in this view)
    /// and the user's stream version (the ETag), read-your-writes.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` for a malformed user id; the
    ///   store's failures.
    /// `user` is taken as typed (``existingUser(typed:)``); the answer is kept under the
    /// stream the rule names, so every spelling of one user reads and fills one entry.
    public func currentViewAnswer<P: Projection>(_ projection: P, user typed: String) throws(ApplicationError) -> ViewMemory.Answer {
        do {
            let user = try existingUser(typed: typed)
            let stream = UserStream.id(for: user)
            return try remembered(projection.name + "\u{1}" + ViewKey.user(stream), tags: [ViewMemory.streamTag(stream)]) { head in
                // The version first: a write that expects it decides on no less than the document shows.
                let version = try store.version(of: stream)
                let document = try currentDocument(projection, key: user, atLeast: head)
                return ViewMemory.Answer(bytes: document.map { Array($0.jsonData) }, version: version)
            }
        } catch {
            throw ApplicationError(error)
        }
    }

    /// A listing's cached details as their JSON bytes (nil: nobody opened it yet), version 0.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` for a malformed listing id; the
    ///   store's failures.
    /// `listing` is taken as typed (``recordedListing(_:)``).
    public func currentDetailsAnswer(listing typed: String) throws(ApplicationError) -> ViewMemory.Answer {
        do {
            let listing = try recordedListing(typed)
            return try remembered(Views.cachedDetails.name + "\u{1}" + ViewKey.listing(listing), tags: [ViewMemory.listingTag(ViewKey.listing(listing))]) { head in
                let document = try currentDocument(Views.cachedDetails, key: listing, atLeast: head)
                return ViewMemory.Answer(bytes: document.map { Array($0.jsonData) }, version: 0)
            }
        } catch {
            throw ApplicationError(error)
        }
    }

    /// A listing's details page as the user sees it (``listing(_:for:)``), as the bytes
    /// `encode` makes of it, with the user's stream version.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` for a malformed user or listing
    ///   id; the store's failures.
    /// Both ids are taken as typed (``existingUser(typed:)``, ``recordedListing(_:)``).
    public func currentListingAnswer(_ typedListing: String, for typedUser: String, encode: (UserListing) -> [UInt8]) throws(ApplicationError) -> ViewMemory.Answer {
        do {
            let user = try existingUser(typed: typedUser)
            let listing = try recordedListing(typedListing)
            let stream = UserStream.id(for: user)
            let key = "listing-page\u{1}" + ViewKey.user(stream) + "\u{1}" + ViewKey.listing(listing)
            return try remembered(key, tags: [ViewMemory.streamTag(stream), ViewMemory.listingTag(ViewKey.listing(listing))]) { head in
                let version = try store.version(of: stream)
                let favorites = try currentDocument(Views.favorites, key: user, atLeast: head)
                let details = try currentDocument(Views.cachedDetails, key: listing, atLeast: head)
                let isFavorite = favorites?.items.contains { $0.listingID == listing } ?? false
                let page = UserListing(listingID: listing, details: details, isFavorite: isFavorite, streamVersion: version)
                return ViewMemory.Answer(bytes: encode(page), version: version)
            }
        } catch {
            throw ApplicationError(error)
        }
    }

    /// The answer kept for `key`, else `read`'s, filed under `tags`. `read` gets the head it
    /// must read at least (read from the store first), or nil with the memory off (it then
    /// reads the head itself, as reads always did).
    func remembered(_ key: String, tags: [String], read: (_ head: Int64?) throws -> ViewMemory.Answer) throws -> ViewMemory.Answer {
        if let answer = viewMemory.lookup(key) { return answer }
        guard let ticket = viewMemory.ticket() else { return try read(nil) }
        let head = try store.headPosition()
        let answer = try read(head)
        viewMemory.fill(key, answer, validThrough: head, tags: tags, ticket: ticket)
        return answer
    }

    /// A view's current document for `key`, reflecting the log through `position` at least
    /// (nil: the head now), as ``currentDocument(_:key:)`` reads it.
    func currentDocument<P: Projection>(_ projection: P, key: String, atLeast position: Int64?) throws -> P.Document? {
        // A read store finds the head itself (never below `position`, read before).
        if let replicaReads { return try replicaReads.document(projection, key: key).0 }
        return try projector.document(projection, key: key, atLeast: position)
    }

    /// Touches what a recorded command may change, before it is acknowledged.
    /// - Parameter user: the user id as recorded (NFC, ``CommandContext/normalized()``): reads
    ///   name the same stream whatever spelling they were given (``existingUser(typed:)``).
    func touchViewMemory(_ command: UserCommand, user: String, through position: Int64) {
        var tags = [ViewMemory.streamTag(UserStream.id(for: user))]
        if case let .viewDetails(listingID, _) = command { tags.append(ViewMemory.listingTag(ViewKey.listing(listingID))) }
        viewMemory.touch(tags, at: position)
    }
}
