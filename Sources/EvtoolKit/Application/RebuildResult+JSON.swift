import JSONKit

extension RebuildResult {
    /// The rebuild as one JSON object, the same on every face (`evtool rebuild --json`,
    /// `POST /v1/admin/rebuild`; docs/schemas/rebuild.schema.json): `views`, each with its
    /// `name`, the active `generation` and the `documents` it holds; the `head` they reflect;
    /// the `seconds` it took (to the millisecond).
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("views"); writer.beginArray()
        for view in views {
            writer.beginObject()
            writer.key("name"); writer.string(view.name)
            writer.key("generation"); writer.number(view.generation)
            writer.key("documents"); writer.number(view.documents)
            writer.endObject()
        }
        writer.endArray()
        writer.key("head"); writer.number(head)
        writer.key("seconds"); writer.number((seconds * 1_000).rounded() / 1_000)
        writer.endObject()
    }
}
