import Foundation

/// The OpenAPI 3.1 document served at `/openapi.json`: docs/openapi.json, the one source,
/// compiled into the binary by SwiftPM (`resources: [.embedInCode("openapi.json")]`, through
/// the link Sources/HTTPAPI/openapi.json), so the server finds it wherever it is run from and
/// needs no file beside it.
public enum OpenAPIDocument {
    /// The document's bytes, as docs/openapi.json holds them.
    public static let bytes: [UInt8] = PackageResources.openapi_json

    /// The document's JSON text.
    public static var text: String { String(decoding: bytes, as: UTF8.self) }
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
    public static func declaresQueryParameters(ofOperation id: String) -> Bool { queryParameters[id] != nil }
}
