/// The OpenAPI 3.1 document served at `/openapi.json` (kept in docs/openapi.json too).
public enum OpenAPIDocument {
    /// The document's JSON text.
    public static let text = #"{"openapi":"3.1.0","info":{"title":"evtool","version":"1"},"paths":{}}"#
}
