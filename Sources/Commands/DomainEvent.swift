import EventLog
import Foundation

/// One thing a user did, as recorded in their stream: the four event types of the domain.
public enum DomainEvent: Sendable, Hashable {
    /// The user searched.
    case searched(Searched)
    /// The user added a favorite.
    case favorited(Favorited)
    /// The user removed a favorite.
    case unfavorited(Unfavorited)
    /// The user opened a listing's details.
    case detailsViewed(DetailsViewed)

    /// Every type name this release reads and writes.
    public static let typeNames: [String] = [
        Searched.typeName, Favorited.typeName, Unfavorited.typeName, DetailsViewed.typeName,
    ]

    /// The stable type name stored with the event, e.g. `Favorited`.
    public var typeName: String {
        switch self {
        case .searched: return Searched.typeName
        case .favorited: return Favorited.typeName
        case .unfavorited: return Unfavorited.typeName
        case .detailsViewed: return DetailsViewed.typeName
        }
    }

    /// The listing the event is about; nil for a search.
    public var listingID: String? {
        switch self {
        case .searched: return nil
        case .favorited(let event): return event.listingID
        case .unfavorited(let event): return event.listingID
        case .detailsViewed(let event): return event.listingID
        }
    }

    // MARK: - JSON

    /// Reads an event from its stored type name and payload, upcasting older schema versions.
    ///
    /// Cost: one JSON parse of `data`. Projections that need only some types should check
    /// the type name first and skip the rest without decoding.
    /// - Throws: ``DomainEventError`` when the type is unknown, the schema is newer than this
    ///   release, or the payload is malformed.
    public static func decode(type: String, data: Data) throws -> DomainEvent {
        switch type {
        case Searched.typeName: return .searched(try EventJSON.decode(Searched.self, type: type, from: data))
        case Favorited.typeName: return .favorited(try EventJSON.decode(Favorited.self, type: type, from: data))
        case Unfavorited.typeName: return .unfavorited(try EventJSON.decode(Unfavorited.self, type: type, from: data))
        case DetailsViewed.typeName: return .detailsViewed(try EventJSON.decode(DetailsViewed.self, type: type, from: data))
        default: throw DomainEventError.unknownType(type)
        }
    }

    /// Checks an event about to be appended outside the command runner (`evtool append`, an
    /// import's plain lines and other producers' CloudEvents): when its type is one of
    /// ``typeNames``, its data must read as that type (older schema versions upcast), since
    /// every command for the user reads it back. Other types pass unread.
    /// Cost: one decode for evtool's own types; nothing for the rest.
    /// - Throws: ``CommandError/rejected(field:rule:)`` for the field `data`, naming what is wrong.
    public static func checkAppended(type: String, data: Data) throws {
        guard typeNames.contains(type) else { return }
        do {
            _ = try decode(type: type, data: data)
        } catch {
            let types = typeNames.dropLast().joined(separator: ", ") + " and " + typeNames.last!
            throw CommandError.rejected(field: "data", rule: "is not a \(type) event evtool can read: \(error) (\(types) are evtool's own types, which every command for the user reads back)")
        }
    }

    /// Reads a recorded event's payload; see ``decode(type:data:)``. A favorite's or
    /// unfavorite's payload of the current version is read by one scan of its bytes, which
    /// the store checked to be JSON when it was appended (Favorited+JSON.swift); the rest by
    /// the decoder.
    public static func decode(_ recorded: RecordedEvent) throws -> DomainEvent {
        switch recorded.type {
        case Favorited.typeName:
            if let favorite = recorded.data.withUnsafeBytes(Favorited.init(scanning:)) { return .favorited(favorite) }
        case Unfavorited.typeName:
            if let unfavorite = recorded.data.withUnsafeBytes(Unfavorited.init(scanning:)) { return .unfavorited(unfavorite) }
        default:
            break
        }
        return try decode(type: recorded.type, data: recorded.data)
    }

    /// The type name and the payload as compact JSON with sorted keys, schema version included.
    /// Cost: one JSON encode.
    public func encode() throws -> (type: String, data: Data) {
        switch self {
        case .searched(let event): return (Searched.typeName, try EventJSON.encode(event))
        case .favorited(let event): return (Favorited.typeName, try event.writtenJSON() ?? EventJSON.encode(event))
        case .unfavorited(let event): return (Unfavorited.typeName, try event.writtenJSON() ?? EventJSON.encode(event))
        case .detailsViewed(let event): return (DetailsViewed.typeName, try EventJSON.encode(event))
        }
    }
}
