import Commands
import EventLog
import Foundation

/// A user's history: every action in order, with its time and audit metadata.
///
/// The history is the user's stream itself, read through its (stream, version) index, so it
/// is never out of date, needs no rebuild, and is exactly what the log says.
public enum History {
    /// One action in a user's history.
    public struct Entry: Sendable, Hashable, Codable {
        /// The event's position in the log.
        public var position: Int64
        /// The event's version in the user's stream.
        public var version: Int64
        /// The event's id, lowercase.
        public var eventID: String
        /// The event type, e.g. `Favorited`.
        public var type: String
        /// When the store recorded it (authoritative).
        public var recordedAt: Date
        /// When it happened by the client's clock, if the metadata says.
        public var occurredAt: Date?
        /// Which app server or client sent it, if the metadata says.
        public var source: String?
        /// The client's request id, if the metadata says.
        public var requestID: String?
        /// What ties the actions of one user interaction together, if the metadata says.
        public var correlationID: String?
        /// One line saying what the user did, e.g. `favorited "Hamilton" (L123)`.
        public var summary: String
        /// The stream the event is in (the user's).
        public var stream: String = ""
        /// The event's link in its stream's hash chain.
        public var hash: String = ""
        /// The event's data, the stored JSON as it is.
        public var data = Data()
        /// The event's metadata, the stored JSON as it is.
        public var metadata = Data()
    }

    /// What to include.
    public struct Filter: Sendable, Hashable {
        /// Only these event types (all when empty).
        public var types: Set<String> = []
        /// Only actions recorded at or after this time.
        public var since: Date?
        /// Only actions recorded before this time.
        public var until: Date?
        /// Only the log as of this point.
        public var asOf: AsOf?

        /// Makes a filter; the defaults let every entry through.
        public init(types: Set<String> = [], since: Date? = nil, until: Date? = nil, asOf: AsOf? = nil) {
            self.types = types
            self.since = since
            self.until = until
            self.asOf = asOf
        }

        /// Checks that the filter can match what it was meant to: a type that differs from one
        /// of evtool's (``DomainEvent/typeNames``, the erasure marker) only in case is refused
        /// naming the right spelling (types compare exactly; other types, appended or imported,
        /// are taken as given), and `since` may not be after `until`. Such a filter would answer
        /// an empty history for a user who has one.
        /// - Throws: ``EventStoreError/invalidInput(_:)`` naming the type or the two times.
        public func check() throws {
            let known = DomainEvent.typeNames + [Erasure.markerType]
            for type in types.sorted() where !known.contains(type) {
                if let meant = known.first(where: { $0.lowercased() == type.lowercased() }) {
                    throw EventStoreError.invalidInput("type '\(type)' is not a type of the log (types compare exactly); did you mean '\(meant)'?")
                }
            }
            if let since, let until, since > until {
                throw EventStoreError.invalidInput("since (\(Timestamp.format(since))) is after until (\(Timestamp.format(until))): no action can be in between")
            }
        }

        func includes(_ event: RecordedEvent) -> Bool {
            if !types.isEmpty, !types.contains(event.type) { return false }
            if let since, event.recordedAt < since { return false }
            if let until, event.recordedAt >= until { return false }
            if let asOf, !asOf.includes(position: event.position, recordedAt: event.recordedAt) { return false }
            return true
        }
    }

    /// The user's history, oldest first, calling `body` for each entry (bounded memory).
    /// - Parameter afterPosition: only entries after this position; the stream is read from
    ///   there (found through its index, ``StreamSearch``), not from its first event.
    public static func forEachEntry(of user: String, in store: any EventStore, filter: Filter = Filter(), afterPosition: Int64 = 0,
                                    _ body: (Entry) throws -> Void) throws {
        try filter.check()
        try checkTypesExist(filter.types, of: user, in: store)
        var next = try StreamSearch.firstVersion(of: UserStream.id(for: user), afterPosition: afterPosition, in: store)
        while true {
            let batch = try store.read(stream: UserStream.id(for: user), from: next, direction: .forwards, limit: 1_000)
            for recorded in batch where filter.includes(recorded) {
                try body(entry(for: recorded))
            }
            guard let last = batch.last, batch.count == 1_000 else { return }
            if case .position(let limit)? = filter.asOf, last.position > limit { return }
            next = last.version + 1
        }
    }

    /// Refuses a type that is not one of evtool's (``Filter/check()`` has those) and that no
    /// event of the user's stream has (an appended or imported type is taken when the stream
    /// holds it): such a filter would show an empty history for a user who has one. The
    /// message names the closest of evtool's types.
    /// - Throws: ``EventStoreError/invalidInput(_:)`` naming the type.
    static func checkTypesExist(_ types: Set<String>, of user: String, in store: any EventStore) throws {
        let known = DomainEvent.typeNames + [Erasure.markerType]
        var unknown = types.subtracting(known)
        guard !unknown.isEmpty else { return }
        var next: Int64 = 1
        while !unknown.isEmpty {
            let batch = try store.read(stream: UserStream.id(for: user), from: next, direction: .forwards, limit: 1_000)
            for event in batch { unknown.remove(event.type) }
            guard let last = batch.last, batch.count == 1_000 else { break }
            next = last.version + 1
        }
        guard let type = unknown.sorted().first else { return }
        let suggestion = EditDistance.nearest(to: type, among: known).map { "; did you mean '\($0)'?" } ?? ""
        throw EventStoreError.invalidInput("no event of user '\(user)' has type '\(type)' (evtool's types: \(known.joined(separator: ", ")))" + suggestion)
    }

    /// The user's history as an array (for small histories and tests).
    public static func entries(of user: String, in store: any EventStore, filter: Filter = Filter()) throws -> [Entry] {
        var entries: [Entry] = []
        try forEachEntry(of: user, in: store, filter: filter) { entries.append($0) }
        return entries
    }

    /// The history entry for one recorded event (pure).
    public static func entry(for recorded: RecordedEvent) -> Entry {
        let metadata = try? EventMetadata.decode(recorded.metadata)
        return Entry(
            position: recorded.position, version: recorded.version, eventID: recorded.id.lowercaseString, type: recorded.type,
            recordedAt: recorded.recordedAt, occurredAt: metadata?.occurredAt, source: metadata?.source,
            requestID: metadata?.requestID, correlationID: metadata?.correlationID,
            summary: summary(of: recorded), stream: recorded.streamID, hash: recorded.hash, data: recorded.data, metadata: recorded.metadata)
    }

    /// One line saying what a recorded event means.
    ///
    /// Read through the views' decoder (``ViewEvent/fastAction(type:data:)``, which reads only
    /// the fields it needs straight from the bytes, else the Codable path): a history or audit
    /// report of 10,000 actions then costs milliseconds, not a Codable decode of every payload.
    public static func summary(of recorded: RecordedEvent) -> String {
        guard let action = ViewEvent.fastAction(type: recorded.type, data: recorded.data)
                ?? ViewEvent.slowAction(type: recorded.type, data: recorded.data) else {
            return "\(recorded.type) (\(recorded.data.count) bytes of data)"
        }
        return summary(of: action)
    }

    /// One line saying what an action means, e.g. `favorited "Hamilton" (L123)`.
    public static func summary(of action: ViewEvent.Action) -> String {
        switch action {
        case .searched(let search):
            let results = search.resultCount.map { ", \($0) results" } ?? ""
            return "searched \"\(search.keyword)\" in \(search.category.rawValue) within \(formatDistance(search.distance)) \(search.units.rawValue) \(place(search.location))\(results)"
        case .favorited(let listingID, let summary):
            return "favorited \"\(summary.name)\" (\(listingID))"
        case .unfavorited(let listingID):
            return "unfavorited \(listingID)"
        case .detailsViewed(let listingID, let name, _):
            return "viewed details of \"\(name)\" (\(listingID))"
        case .erased(let through):
            return through == 1 ? "erased: event 1 of this user was erased" : "erased: events 1 to \(through) of this user were erased"
        }
    }

    /// The same line from the domain event itself (the Codable path; tests hold the two equal).
    static func summary(of event: DomainEvent) -> String {
        switch event {
        case .searched(let search):
            let results = search.results.map { ", \($0.count) results" } ?? ""
            return "searched \"\(search.keyword)\" in \(search.category.rawValue) within \(formatDistance(search.distance)) \(search.units.rawValue) \(place(search.location))\(results)"
        case .favorited(let favorite):
            return "favorited \"\(favorite.summary.name)\" (\(favorite.listingID))"
        case .unfavorited(let unfavorite):
            return "unfavorited \(unfavorite.listingID)"
        case .detailsViewed(let viewed):
            return "viewed details of \"\(viewed.details.info.name)\" (\(viewed.listingID))"
        }
    }

    static func place(_ location: SearchLocation) -> String {
        switch location {
        case let .current(latitude, longitude): return String(format: "near %.4f,%.4f", latitude, longitude)
        case let .custom(text): return "near \"\(text)\""
        }
    }

    /// A distance without a needless ".0" (10, 2.5); a whole number too large for `Int` (a
    /// search may ask for 1e308 miles) keeps Double's own form instead of trapping.
    public static func formatDistance(_ distance: Double) -> String {
        distance == distance.rounded() && abs(distance) < 1e15 ? String(Int(distance)) : String(distance)
    }
}
