import Foundation
import JSONKit

/// A proof as JSON: what `evtool prove --json` prints and `GET /v1/proofs/inclusion` and
/// `GET /v1/proofs/consistency` serve, byte for byte (docs/schemas/proof.schema.json). The same
/// members as the text form, the event's hashes in hex and the path's in base64:
///
///     {"proof":"inclusion","index":3,"size":12,"event":"0193…","entry":"<hex>","previous":"<hex>","path":["<base64>",…]}
///     {"proof":"consistency","from":5,"to":12,"path":["<base64>",…]}
///
/// `evtool check-proof` reads either form, each hash only in the text evtool writes for it.
extension ProofDocument {
    /// The document as one compact JSON object (no newline).
    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        let hashes: [[UInt8]]
        switch self {
        case .inclusion(let index, let size, let event, let entry, let previous, let path):
            writer.key("proof"); writer.string("inclusion")
            writer.key("index"); writer.number(Int64(clamping: index))
            writer.key("size"); writer.number(Int64(clamping: size))
            writer.key("event"); writer.string(event.lowercaseString)
            writer.key("entry"); writer.string(entry.hexString)
            writer.key("previous"); writer.string(previous.hexString)
            hashes = path
        case .consistency(let from, let to, let path):
            writer.key("proof"); writer.string("consistency")
            writer.key("from"); writer.number(Int64(clamping: from))
            writer.key("to"); writer.number(Int64(clamping: to))
            hashes = path
        }
        writer.key("path")
        writer.beginArray()
        for hash in hashes { writer.string(Data(hash).base64EncodedString()) }
        writer.endArray()
        writer.endObject()
        return writer.text
    }

    /// Reads a proof's JSON form.
    /// - Throws: ``MerkleProofError/malformed(_:)`` naming the member that is missing or wrong.
    public init(json: Data) throws(MerkleProofError) {
        let members: [String: Range<Int>]
        switch JSONSyntax.members(of: json, in: 0..<json.count) {
        case .success(let found): members = found
        case .failure(let error): throw .malformed("the JSON proof is not a JSON object (\(error.reason))")
        }
        func string(_ name: String) throws(MerkleProofError) -> String {
            guard let range = members[name] else { throw .malformed("the JSON proof has no '\(name)'") }
            guard let text = JSONScan.string(json, range) else { throw .malformed("the JSON proof's '\(name)' is not a string") }
            return text
        }
        func number(_ name: String) throws(MerkleProofError) -> UInt64 {
            guard let range = members[name] else { throw .malformed("the JSON proof has no '\(name)'") }
            guard let value = json.withUnsafeBytes({ JSONScan.integer($0, range) }), value >= 0 else {
                throw .malformed("the JSON proof's '\(name)' is not a whole number from 0")
            }
            return UInt64(value)
        }
        func hash(_ name: String) throws(MerkleProofError) -> [UInt8] {
            guard let hash = CanonicalText.lowercaseHex(try string(name)), hash.count == MerkleHash.size else {
                throw .malformed("the JSON proof's '\(name)' is not a chain hash (64 lower-case hex digits)")
            }
            return hash
        }
        let kind = try string("proof")
        guard kind == "inclusion" || kind == "consistency" else {
            throw .malformed("the JSON proof's 'proof' is '\(kind)', not 'inclusion' or 'consistency'")
        }
        guard let pathRange = members["path"] else { throw .malformed("the JSON \(kind) proof has no 'path'") }
        guard let elements = json.withUnsafeBytes({ JSONScan.elements(UnsafeRawBufferPointer(rebasing: $0[pathRange]), offset: pathRange.lowerBound) }) else {
            throw .malformed("the JSON proof's 'path' is not an array of base64 hashes")
        }
        var path: [[UInt8]] = []
        for (offset, element) in elements.enumerated() {
            guard let text = JSONScan.string(json, element) else { throw .malformed("the JSON proof's 'path.\(offset)' is not a string") }
            guard let hash = CanonicalText.base64(text), hash.count == MerkleHash.size else {
                throw .malformed("the JSON proof's 'path.\(offset)' is not a SHA-256 hash in canonical base64 (44 characters ending in one '=')")
            }
            path.append(hash)
        }
        func required(_ name: String) throws(MerkleProofError) {
            guard members[name] != nil else { throw .malformed("the JSON \(kind) proof has no '\(name)'") }
        }
        if kind == "inclusion" {
            for name in ["index", "size", "event", "entry", "previous"] { try required(name) }
            let idText = try string("event")
            guard let id = UUID(uuidString: idText) else { throw .malformed("the JSON proof's 'event' ('\(idText)') is not an event id") }
            self = .inclusion(index: try number("index"), size: try number("size"), event: id, entry: try hash("entry"),
                              previous: try hash("previous"), path: path)
        } else {
            for name in ["from", "to"] { try required(name) }
            self = .consistency(from: try number("from"), to: try number("to"), path: path)
        }
    }

    /// Reads a proof in either form: JSON when the text starts with `{`, else the text form.
    /// - Throws: ``MerkleProofError/malformed(_:)`` naming what is wrong.
    public init(reading text: String) throws(MerkleProofError) {
        if text.drop(while: { $0.isWhitespace }).first == "{" {
            try self.init(json: Data(text.utf8))
        } else {
            try self.init(text: text)
        }
    }
}
