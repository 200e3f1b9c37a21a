import JSONKit

/// The command line's JSON replies (`--json`): one compact object per line, written with the
/// package's one writer (``JSONKit/JSONWriter``). Each shape is described by a JSON Schema in
/// docs/schemas/, which the tests validate real output against.
enum JSONOutput {
    /// One JSON object, its members written by `body`.
    static func object(_ body: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        writer.beginObject()
        body(&writer)
        writer.endObject()
        return writer.text
    }
}
