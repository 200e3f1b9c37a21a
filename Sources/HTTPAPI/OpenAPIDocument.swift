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
