import Audit
import EventLog
import EvtoolKit
import Foundation

/// The verifiable log's routes, for auditors and admins (docs/explanation/audit.md, docs/reference/http.md): the
/// newest recorded checkpoint, and inclusion and consistency proofs in the documents
/// `evtool prove --json` prints, so `evtool check-proof` checks what was served with no store.
extension API {
    /// The `/v1/checkpoints` and `/v1/proofs` routes.
    static let proofRoutes: [Route] = [
        Route(method: "GET", template: "/v1/checkpoints/latest", roles: [.auditor, .admin], name: "getLatestCheckpoint", handler: { try $0.latestCheckpoint($1) }),
        Route(method: "GET", template: "/v1/proofs/inclusion", roles: [.auditor, .admin], name: "getInclusionProof", handler: { try $0.inclusionProof($1) }),
        Route(method: "GET", template: "/v1/proofs/consistency", roles: [.auditor, .admin], name: "getConsistencyProof", handler: { try $0.consistencyProof($1) }),
    ]

    /// The newest recorded checkpoint: its number, seal, size, root, time, signers, and its text
    /// (`checkpoint`, the signed note `evtool check-proof --checkpoint` reads). 404 when none.
    func latestCheckpoint(_ match: RouteMatch) throws -> HTTPResponse {
        guard let (recorded, checkpoint) = try proving({ try Proofs.latestCheckpoint(in: application.store) }) else {
            throw Problem(.notFound, "the store has recorded no checkpoint yet: seal it ('evtool seal --key', or POST /v1/admin/seal on a server with --seal-key)")
        }
        var writer = ResponseWriter()
        writer.beginObject()
        writer.key("number"); writer.number(recorded.number)
        writer.key("seal"); writer.number(recorded.seal)
        writer.key("size"); writer.number(Int64(clamping: checkpoint.size))
        writer.key("root"); writer.string(Data(checkpoint.root).base64EncodedString())
        writer.key("time"); writer.string(checkpoint.time)
        writer.key("recordedAt"); writer.string(recorded.recordedAt)
        writer.key("signed"); writer.bool(!checkpoint.signatures.isEmpty)
        writer.key("keyIDs"); writer.beginArray()
        for signature in checkpoint.signatures { writer.string(signature.keyID.hexString) }
        writer.endArray()
        writer.key("checkpoint"); writer.string(recorded.note)
        writer.endObject()
        return .json(200, writer.bytes)
    }

    /// `?event=ID[&size=N]`: the event's inclusion proof, in the newest checkpoint's tree by default.
    func inclusionProof(_ match: RouteMatch) throws -> HTTPResponse {
        guard let text = try match.query("event") else {
            throw Problem(.malformedRequest, "query parameter 'event' is missing: the id of the event to prove (as /v1/log gives it)", field: "event")
        }
        guard let id = UUID(uuidString: text) else {
            throw Problem(.malformedRequest, "query parameter 'event' must be an event id (a UUID), not '\(text)'", field: "event")
        }
        let size = try Self.wholeNumber(match, "size")
        let proof = try proving { try Proofs.inclusion(of: id, in: application.store, size: size, name: storeDescription) }
        return .json(200, Array(proof.json.utf8))
    }

    /// `?from=N&to=M`: the proof that the tree of the first N events is a prefix of that of the first M.
    func consistencyProof(_ match: RouteMatch) throws -> HTTPResponse {
        guard let from = try Self.wholeNumber(match, "from") else {
            throw Problem(.malformedRequest, "query parameter 'from' is missing: the older tree's size (its checkpoint's)", field: "from")
        }
        guard let to = try Self.wholeNumber(match, "to") else {
            throw Problem(.malformedRequest, "query parameter 'to' is missing: the newer tree's size (its checkpoint's)", field: "to")
        }
        let proof = try proving { try Proofs.consistency(in: application.store, from: from, to: to, name: storeDescription) }
        return .json(200, Array(proof.json.utf8))
    }

    /// A whole-number query parameter (0 or more), nil when absent.
    static func wholeNumber(_ match: RouteMatch, _ name: String) throws(Problem) -> UInt64? {
        guard let text = try match.query(name) else { return nil }
        guard let value = UInt64(text), String(value) == text, value <= UInt64(Int64.max) else {
            throw Problem(.malformedRequest, "query parameter '\(name)' must be a whole number, not '\(text)'", field: name)
        }
        return value
    }

    /// Runs a proof operation, turning its refusals into problem documents (404, 422, 500 naming
    /// the parameter at fault).
    func proving<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as ProofRequestError {
            switch refusal.kind {
            case .notFound: throw Problem(.notFound, refusal.message, field: refusal.parameter)
            case .invalid: throw Problem(.validation, refusal.message, field: refusal.parameter)
            case .damaged: throw Problem(.serverError, refusal.message)
            }
        }
    }
}
