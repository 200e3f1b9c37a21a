import EventLog
import JSONKit

extension SealResult {
    /// The seal as one JSON object, the same on every face (`evtool seal --json`,
    /// `POST /v1/admin/seal`; docs/schemas/seal.schema.json): the seal's `number`, `position`,
    /// `events`, `streams`, `hash`, `previousHash` and `sealedAt`; the `checkpoint`'s text (null
    /// when none was made) and whether it is `signed`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.key("number"); writer.number(seal.number)
        writer.key("position"); writer.number(seal.position)
        writer.key("events"); writer.number(seal.events)
        writer.key("streams"); writer.number(seal.streams)
        writer.key("hash"); writer.string(seal.hash)
        writer.key("previousHash"); writer.string(seal.previousHash)
        writer.key("sealedAt"); writer.string(seal.sealedAt)
        writer.key("checkpoint")
        if let checkpoint { writer.string(checkpoint.text) } else { writer.null() }
        writer.key("signed"); writer.bool(isSigned)
        writer.endObject()
    }
}
