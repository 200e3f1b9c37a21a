import Foundation
import JSONKit

/// The OpenAPI 3.1 document served at `/openapi.json`: docs/openapi.json, the one source,
/// compiled into the binary by SwiftPM (`resources: [.embedInCode("openapi.json")]`, through
/// the link Sources/HTTPAPI/openapi.json), so the server finds it wherever it is run from and
/// needs no file beside it.
package enum OpenAPIDocument {
    /// The document's bytes, as docs/openapi.json holds them.
    package static let bytes: [UInt8] = PackageResources.openapi_json

    /// The document's JSON text.
    package static var text: String { String(decoding: bytes, as: UTF8.self) }
}

extension OpenAPIDocument {
    /// The query parameters each operation takes, by operation id, as the document declares
    /// them: the server refuses any other (``API/match(_:)``), so the document and what is
    /// served cannot drift apart and a parameter a route does not take (`as-of` on a route
    /// that has no past) is an error, not ignored.
    /// A route with no entry (an operation id the document does not have) takes none: the
    /// check fails closed, and a test holds every route to an entry.
    static let queryParameters: [String: Set<String>] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let paths = document["paths"] as? [String: [String: Any]] else { return [:] }
        let shared = (document["components"] as? [String: Any])?["parameters"] as? [String: [String: Any]] ?? [:]
        // A parameter may be a `$ref` to components/parameters.
        func resolved(_ parameter: [String: Any]) -> [String: Any] {
            guard let reference = parameter["$ref"] as? String, reference.hasPrefix("#/components/parameters/") else { return parameter }
            return shared[String(reference.dropFirst("#/components/parameters/".count))] ?? parameter
        }
        var table: [String: Set<String>] = [:]
        for (_, item) in paths {
            let common = item["parameters"] as? [[String: Any]] ?? []
            for (method, value) in item where method != "parameters" {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String else { continue }
                let declared = (common + (operation["parameters"] as? [[String: Any]] ?? [])).map(resolved)
                table[id] = Set(declared.compactMap { $0["in"] as? String == "query" ? $0["name"] as? String : nil })
            }
        }
        return table
    }()

    /// Whether the document declares the operation, and so the query parameters it takes.
    package static func declaresQueryParameters(ofOperation id: String) -> Bool { queryParameters[id] != nil }
}

/// The shape of a request body as the OpenAPI document declares it, as far as the server
/// checks it itself: which members each object may have. Every other rule (types, required
/// members, ranges) is the decoder's and the domain's.
indirect enum BodyShape: Sendable {
    /// An object; `closed` when the document says `additionalProperties: false`.
    case object(members: [String: BodyShape], closed: Bool)
    /// An array of items of one shape.
    case array(BodyShape)
    /// One of several shapes (`oneOf`): a body any of them declares whole passes.
    case oneOf([BodyShape])
    /// Anything else (a string, a number, a free-form object).
    case value

    /// The first member (depth first, in sorted order) of `json` that its object's shape
    /// does not declare, as a path (`info.priceRange.currenc`, `artists[1].nam`); nil when
    /// every member is declared.
    func undeclaredMember(in json: Any, at path: String = "") -> String? {
        undeclaredMembers(in: json, at: path).first
    }

    /// Every member of `json` that its object's shape does not declare, depth first in sorted
    /// order. Under a `oneOf`, none when an alternative declares them all; else those of the
    /// alternative the body follows best: the fewest undeclared members, then the deepest
    /// first one (the first alternative on a tie).
    func undeclaredMembers(in json: Any, at path: String = "") -> [String] {
        switch self {
        case let .object(members, closed):
            guard let object = json as? [String: Any] else { return [] }
            var found: [String] = []
            for key in object.keys.sorted() {
                let memberPath = path.isEmpty ? key : path + "." + key
                guard let shape = members[key] else {
                    if closed { found.append(memberPath) }
                    continue
                }
                found += shape.undeclaredMembers(in: object[key]!, at: memberPath)
            }
            return found
        case let .array(item):
            guard let array = json as? [Any] else { return [] }
            return array.enumerated().flatMap { item.undeclaredMembers(in: $0.element, at: "\(path)[\($0.offset)]") }
        case let .oneOf(alternatives):
            var best: [String]?
            for alternative in alternatives {
                let found = alternative.undeclaredMembers(in: json, at: path)
                guard !found.isEmpty else { return [] }
                if let current = best, current.count < found.count
                    || (current.count == found.count && Self.depth(of: current[0]) >= Self.depth(of: found[0])) { continue }
                best = found
            }
            return best ?? []
        case .value:
            return []
        }
    }

    /// `body` read as an object, when it is valid JSON and an object whose every member this
    /// shape declares with no shape of its own to look into: then it has no undeclared member.
    /// The common case, answered by one check of the syntax and one scan of the members
    /// (JSONKit) instead of building the body's objects; nil sends the body to
    /// ``undeclaredMembers(in:at:)``. A name written with an escape counts as undeclared here.
    func flatObject(of body: Data) -> JSONObject? {
        guard case let .object(members, _) = self, JSONSyntax.problem(in: body) == nil, let object = JSONObject(body) else { return nil }
        for name in object.names {
            guard case .value? = members[name] else { return nil }
        }
        return object
    }

    /// How many members and items deep a path goes.
    static func depth(of path: String) -> Int {
        path.filter { $0 == "." || $0 == "[" }.count
    }

    /// The shape of a schema object of the document, its `$ref`s to components resolved.
    static func of(_ schema: [String: Any], components: [String: Any], depth: Int = 0) -> BodyShape {
        guard depth < 32 else { return .value }
        if let reference = schema["$ref"] as? String, reference.hasPrefix("#/components/schemas/"),
           let target = components[String(reference.dropFirst("#/components/schemas/".count))] as? [String: Any] {
            return of(target, components: components, depth: depth + 1)
        }
        if let properties = schema["properties"] as? [String: Any] {
            var members: [String: BodyShape] = [:]
            for (name, value) in properties { members[name] = (value as? [String: Any]).map { of($0, components: components, depth: depth + 1) } ?? .value }
            return .object(members: members, closed: (schema["additionalProperties"] as? Bool) == false)
        }
        if let alternatives = schema["oneOf"] as? [[String: Any]] {
            return .oneOf(alternatives.map { of($0, components: components, depth: depth + 1) })
        }
        if let items = schema["items"] as? [String: Any] { return .array(of(items, components: components, depth: depth + 1)) }
        return .value
    }
}

extension OpenAPIDocument {
    /// The request body's shape of each operation that takes a JSON body, by operation id
    /// (``RequestBodies/decode(_:from:what:operation:)`` refuses a member it does not declare).
    static let requestBodies: [String: BodyShape] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let paths = document["paths"] as? [String: [String: Any]] else { return [:] }
        let components = (document["components"] as? [String: Any])?["schemas"] as? [String: Any] ?? [:]
        var table: [String: BodyShape] = [:]
        for (_, item) in paths {
            for (_, value) in item {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String,
                      let body = operation["requestBody"] as? [String: Any],
                      let schema = ((body["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any] else { continue }
                table[id] = BodyShape.of(schema, components: components)
            }
        }
        return table
    }()
}
