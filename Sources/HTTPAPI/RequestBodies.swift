import Commands
import Foundation
import JSONKit
import Transfer

/// The JSON bodies of the write operations, and how they are read.
enum RequestBodies {
    /// The members the object holding `path`'s last member declares, sorted.
    /// Under a `oneOf`, the members any alternative declares there.
    static func declaredSiblings(of path: String, in shape: BodyShape) -> [String] {
        var parts = path.split(separator: ".").map(String.init)
        _ = parts.popLast()
        return members(along: parts[...], in: shape).sorted()
    }

    /// The members the object at the end of `parts` declares, in `shape`.
    private static func members(along parts: ArraySlice<String>, in shape: BodyShape) -> Set<String> {
        if case let .oneOf(alternatives) = shape {
            return alternatives.reduce(into: Set<String>()) { $0.formUnion(members(along: parts, in: $1)) }
        }
        guard case let .object(members, _) = shape else { return [] }
        guard let part = parts.first else { return Set(members.keys) }
        let name = part.split(separator: "[").first.map(String.init) ?? part
        guard var next = members[name] else { return [] }
        for _ in part.filter({ $0 == "[" }) { if case let .array(item) = next { next = item } }
        return Self.members(along: parts.dropFirst(), in: next)
    }

    /// `POST /v1/users/{user}/searches`: the fields and rules of `evtool search`.
    struct Search: Decodable {
        /// `here`: the user's detected location.
        struct Coordinates: Decodable {
            var latitude: Double
            var longitude: Double
        }
        var keyword: String
        var category: String?
        var distance: Double?
        var units: String?
        var here: Coordinates?
        var location: String?
        var results: SearchResults?

        /// The search, with the CLI's rules for the words and the location.
        func searched() throws -> Searched {
            let category = try self.category.map { try SearchCategory(validating: $0) } ?? .all
            let units = try self.units.map { try DistanceUnit(validating: $0) } ?? .miles
            let place: SearchLocation
            switch (here, location) {
            case let (here?, nil): place = .current(latitude: here.latitude, longitude: here.longitude)
            case let (nil, text?): place = .custom(text: text)
            case (nil, nil): throw CommandError.rejected(field: "location", rule: "must be given: 'here' {latitude, longitude} or 'location' text")
            default: throw CommandError.rejected(field: "location", rule: "must be one of 'here' or 'location', not both")
            }
            return Searched(keyword: keyword, category: category, distance: distance ?? Searched.defaultDistance, units: units, location: place, results: results)
        }
    }

    /// Decodes a JSON body of type `T`, after checking its media type and its members.
    /// - Throws: 415 for another media type, 400 for text that is not JSON, 422 naming the
    ///   member that is missing or of the wrong type, or that the operation's body does not
    ///   declare in the OpenAPI document (``OpenAPIDocument/requestBodies``): a mistyped
    ///   member must not pass for an absent one (`"catgory"` would record category All, an
    ///   admin's `{"viewz": …}` rebuild every view).
    /// - Parameter operation: the route's operation id, whose declared body is checked.
    static func decode<T: Decodable>(_: T.Type, from request: HTTPRequest, what: String, operation: String) throws(Problem) -> T {
        let type = request.header("content-type")?.split(separator: ";").first.map { HTTPText.lowercased(String(HTTPText.trimmed($0))) }
        guard type == "application/json" else {
            throw Problem(.unsupportedMediaType, "the \(what) must be sent as 'Content-Type: application/json'" + (type.map { ", not '\($0)'" } ?? ""))
        }
        let body = Data(request.body)
        let shape = OpenAPIDocument.requestBodies[operation]
        let flat = shape?.flatObject(of: body)
        if let flat, let plain = T.self as? any PlainJSONBody.Type, let value = plain.init(plain: flat) as? T {
            return value
        }
        if let shape, flat == nil, let json = try? JSONSerialization.jsonObject(with: body), let unknown = shape.undeclaredMember(in: json) {
            let siblings = Self.declaredSiblings(of: unknown, in: shape)
            throw Problem(.validation, "the \(what) JSON is not usable: '\(unknown)' is not a member it takes" + (siblings.isEmpty ? "" : " (it takes \(siblings.joined(separator: ", ")))"), field: unknown)
        }
        do {
            return try JSONDecodingFailure.decode(T.self, from: body)
        } catch {
            if error.isSyntax { throw Problem(.malformedRequest, "the \(what) is not valid JSON") }
            throw Problem(.validation, "the \(what) JSON is not usable: \(error)", field: error.field)
        }
    }
}

/// A body that can be read straight from the bytes of a valid JSON object whose members the
/// operation all declares (``BodyShape/flatObject(of:)``), when the object is
/// plain: every member it takes once, of the JSON type it takes, strings without escapes.
/// Then it is the value Foundation's decoder would make, without its cost; for anything else
/// the initializer answers nil and the decoder reads the body, and names what is wrong.
protocol PlainJSONBody {
    init?(plain object: JSONObject)
}

extension ListingSummary: PlainJSONBody {
    init?(plain object: JSONObject) {
        guard object.count == 4, let name = object.plainString("name"), let venue = object.plainString("venue"),
              let localDateTime = object.plainString("localDateTime"), let category = object.plainString("category") else { return nil }
        self.init(name: name, venue: venue, localDateTime: localDateTime, category: category)
    }
}
