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
    static let queryParameters: [String: Set<String>] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
              let paths = document["paths"] as? [String: [String: Any]] else { return [:] }
        var table: [String: Set<String>] = [:]
        for (_, item) in paths {
            let shared = item["parameters"] as? [[String: Any]] ?? []
            for (method, value) in item where method != "parameters" {
                guard let operation = value as? [String: Any], let id = operation["operationId"] as? String else { continue }
                let declared = shared + (operation["parameters"] as? [[String: Any]] ?? [])
                table[id] = Set(declared.compactMap { $0["in"] as? String == "query" ? $0["name"] as? String : nil })
            }
        }
        return table
    }()
}
