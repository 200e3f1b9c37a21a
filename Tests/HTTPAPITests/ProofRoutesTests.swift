import Audit
import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport
import Transfer

/// The verifiable log's routes as pure functions on both stores: `/v1/checkpoints/latest`,
/// `/v1/proofs/inclusion`, `/v1/proofs/consistency` — who may call them, what they answer (the
/// documents `evtool prove --json` prints, checked here offline against the served checkpoint),
/// every bad parameter named, the kept tree extended before answering, and no proof handed out
/// when the recorded checkpoint does not hold. The served documents against `evtool check-proof`
/// are in ServeProofsTests.
@Suite("Proof routes")
struct ProofRoutesTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let summary = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)

    /// An API (with a seal key) with a token per role over a fresh store.
    func withAPI(_ kind: Kind, sealKey: Ed25519Key, _ body: (API, [Role: String]) throws -> Void) throws {
        try withAPI(kind, sealKey: sealKey) { api, tokens, _ in try body(api, tokens) }
    }

    /// The same, with a function that runs SQL on the store as its owner, the append-only
    /// triggers of `signed_checkpoints` off (`S.` names the store's schema).
    func withAPI(_ kind: Kind, sealKey: Ed25519Key, _ body: (API, [Role: String], (String) throws -> Void) throws -> Void) throws {
        var tokens: [Role: String] = [:]
        var text = ""
        for role in Role.allCases {
            let token = TokenFile.newToken()
            tokens[role] = token
            text += TokenFile.line(for: token, role: role, user: role == .user ? "ada" : nil, name: "proof-\(role.rawValue)") + "\n"
        }
        let file = try TokenFile(parsing: text, path: "tokens.txt")
        switch kind {
        case .sqlite:
            let sqlite = try TestStores.sqliteFile()
            defer { sqlite.cleanup() }
            try body(API(application: Application(store: sqlite.store), tokens: file, sealKey: sealKey), tokens) { sql in
                let drops = "DROP TRIGGER IF EXISTS signed_checkpoints_append_only_update; DROP TRIGGER IF EXISTS signed_checkpoints_append_only_delete;"
                let result = try Processes.run(Processes.sqlite3, [sqlite.path, drops + sql.replacingOccurrences(of: "S.", with: "")])
                #expect(result.status == 0, "\(result)")
            }
        case .postgres:
            let postgres = try TestStores.postgres()
            defer { postgres.cleanup() }
            try body(API(application: Application(store: postgres.store), tokens: file, sealKey: sealKey), tokens) { sql in
                let disable = "ALTER TABLE \(postgres.schema).signed_checkpoints DISABLE TRIGGER signed_checkpoints_append_only;"
                let result = try Processes.run(Processes.psql, [postgres.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                                                                disable + sql.replacingOccurrences(of: "S.", with: "\(postgres.schema).")])
                #expect(result.status == 0, "\(result)")
            }
        }
    }

    func get(_ api: API, _ target: String, _ token: String?) -> HTTPResponse {
        api.respond(to: HTTPRequest(method: "GET", target: target, headers: token.map { ["Authorization": "Bearer \($0)"] } ?? [:]))
    }

    /// Records a favorite per listing for `user`; returns the event ids.
    func favorite(_ api: API, _ tokens: [Role: String], user: String, _ listings: [String]) throws -> [String] {
        try listings.map { listing in
            let response = api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/\(user)/favorites/\(listing)",
                                                       headers: ["Authorization": "Bearer \(tokens[.app]!)", "Content-Type": "application/json"], body: Self.summary))
            #expect(response.status == 201, "\(response.text)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
            return try #require((object["eventIDs"] as? [String])?.first)
        }
    }

    func seal(_ api: API, _ tokens: [Role: String]) throws -> Checkpoint {
        let sealed = api.respond(to: HTTPRequest(method: "POST", target: "/v1/admin/seal", headers: ["Authorization": "Bearer \(tokens[.admin]!)"]))
        #expect(sealed.status == 201, "\(sealed.text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(sealed.body)) as? [String: Any])
        return try Checkpoint(text: try #require(object["checkpoint"] as? String))
    }

    func object(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.status) \(response.text)")
    }

    /// A problem document of `status` and `kind` naming `field`.
    func expectProblem(_ response: HTTPResponse, _ status: Int, _ kind: String, field: String?, _ detail: String? = nil,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == status && response.header("Content-Type") == "application/problem+json", "\(response.status) \(response.text)", sourceLocation: sourceLocation)
        let problem = try object(response)
        #expect(problem["type"] as? String == "/problems/\(kind)" && problem["status"] as? Int == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(problem["field"] as? String == field, "\(response.text)", sourceLocation: sourceLocation)
        if let detail { #expect((problem["detail"] as? String)?.contains(detail) == true, "\(response.text)", sourceLocation: sourceLocation) }
    }

    @Test("auditor and admin may read checkpoints and proofs; app gets 403, no token 401; nothing is recorded", arguments: Kind.allCases)
    func roleMatrix(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens throws in
            let ids = try favorite(api, tokens, user: "ada", ["L1", "L2"])
            _ = try seal(api, tokens)
            let head = try api.application.store.headPosition()
            for target in ["/v1/checkpoints/latest", "/v1/proofs/inclusion?event=\(ids[0])", "/v1/proofs/consistency?from=1&to=2"] {
                for role in [Role.auditor, .admin] {
                    let response = get(api, target, tokens[role])
                    #expect(response.status == 200 && response.header("Content-Type") == "application/json", "\(role) \(target): \(response.text)")
                }
                let app = get(api, target, tokens[.app])
                try expectProblem(app, 403, "forbidden", field: nil, "roles that may: auditor, admin")
                let none = get(api, target, nil)
                try expectProblem(none, 401, "unauthorized", field: nil)
                #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
                #expect(api.respond(to: HTTPRequest(method: "POST", target: target, headers: ["Authorization": "Bearer \(tokens[.admin]!)"])).status == 405)
            }
            #expect(try api.application.store.headPosition() == head, "reading proofs records nothing")
        }
    }

    @Test("the latest checkpoint: 404 before a seal, then the newest recorded one, signed, its note the one the seal answered", arguments: Kind.allCases)
    func latestCheckpoint(kind: Kind) throws {
        let key = try Ed25519Key.generate()
        try withAPI(kind, sealKey: key) { api, tokens throws in
            try expectProblem(get(api, "/v1/checkpoints/latest", tokens[.auditor]), 404, "not-found", field: nil, "no checkpoint")
            _ = try favorite(api, tokens, user: "ada", ["L1", "L2"])
            let first = try seal(api, tokens)
            _ = try favorite(api, tokens, user: "bob", ["L3"])
            let second = try seal(api, tokens)
            let response = get(api, "/v1/checkpoints/latest", tokens[.auditor])
            #expect(response.status == 200, "\(response.text)")
            let document = try object(response)
            #expect(Set(document.keys) == ["number", "seal", "size", "root", "time", "recordedAt", "signed", "keyIDs", "checkpoint"], "\(response.text)")
            #expect(document["number"] as? Int == 2 && document["seal"] as? Int == 2 && document["size"] as? Int == 3, "\(response.text)")
            #expect(document["checkpoint"] as? String == second.text, "the recorded note, as the seal answered it")
            #expect(document["root"] as? String == Data(second.root).base64EncodedString() && document["time"] as? String == second.time)
            #expect(document["signed"] as? Bool == true && document["keyIDs"] as? [String] == [Checkpoint.keyID(of: key)], "\(response.text)")
            let served = try Checkpoint(text: try #require(document["checkpoint"] as? String))
            #expect(throws: Never.self) { try served.verifySignature(try Ed25519Key(publicKey: key.publicKey)) }
            #expect(served != first)
        }
    }

    @Test("inclusion: bound to the newest checkpoint by default, or to size; the proof checks against that checkpoint offline", arguments: Kind.allCases)
    func inclusion(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens throws in
            let ids = try favorite(api, tokens, user: "ada", ["L1", "L2", "L3"])
            let older = try seal(api, tokens)
            let later = try favorite(api, tokens, user: "bob", ["L4", "L5"])
            let newer = try seal(api, tokens)
            #expect(older.size == 3 && newer.size == 5)

            let byDefault = get(api, "/v1/proofs/inclusion?event=\(ids[1])", tokens[.auditor])
            #expect(byDefault.status == 200, "\(byDefault.text)")
            let proof = try ProofDocument(json: Data(byDefault.body))
            guard case let .inclusion(index, size, event, _, _, _) = proof else { Issue.record("not an inclusion proof: \(byDefault.text)"); return }
            #expect(index == 1 && size == 5 && event.lowercaseString == ids[1], "bound to the newest checkpoint's size: \(byDefault.text)")
            #expect(byDefault.text == proof.json, "the served bytes are the document's JSON form, as 'evtool prove --json' prints it")
            #expect(throws: Never.self) { try Proofs.checkInclusion(proof, against: newer) }
            #expect(throws: OperationError.self) { try Proofs.checkInclusion(proof, against: older) }

            let inOlder = get(api, "/v1/proofs/inclusion?event=\(ids[1])&size=3", tokens[.admin])
            let olderProof = try ProofDocument(json: Data(inOlder.body))
            #expect(throws: Never.self) { try Proofs.checkInclusion(olderProof, against: older) }
            let last = try ProofDocument(json: Data(get(api, "/v1/proofs/inclusion?event=\(later[1])", tokens[.auditor]).body))
            #expect(throws: Never.self) { try Proofs.checkInclusion(last, against: newer) }

            let consistency = get(api, "/v1/proofs/consistency?from=3&to=5", tokens[.auditor])
            #expect(consistency.status == 200, "\(consistency.text)")
            let consistent = try ProofDocument(json: Data(consistency.body))
            #expect(consistency.text == consistent.json)
            #expect(throws: Never.self) { try Proofs.checkConsistency(consistent, from: older, to: newer) }
            let same = try ProofDocument(json: Data(get(api, "/v1/proofs/consistency?from=5&to=5", tokens[.auditor]).body))
            #expect(same == .consistency(from: 5, to: 5, path: []), "from = to: the empty proof")
        }
    }

    @Test("every bad parameter is a problem naming it: missing or not a number 400, unknown event 404, beyond the tree 422", arguments: Kind.allCases)
    func badParameters(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens throws in
            let auditor = tokens[.auditor]
            let unknown = UUID().lowercaseString
            // An empty store: nothing to prove in.
            try expectProblem(get(api, "/v1/proofs/inclusion?event=\(unknown)", auditor), 404, "not-found", field: "event")
            try expectProblem(get(api, "/v1/proofs/inclusion?event=\(unknown)&size=1", auditor), 422, "validation", field: "size", "no events yet")
            try expectProblem(get(api, "/v1/proofs/consistency?from=1&to=1", auditor), 422, "validation", field: "to", "no events yet")

            let ids = try favorite(api, tokens, user: "ada", ["L1", "L2", "L3"])
            _ = try seal(api, tokens)
            let after = try favorite(api, tokens, user: "ada", ["L4"])
            let cases: [(String, Int, String, String, String)] = [
                ("/v1/proofs/inclusion", 400, "malformed-request", "event", "'event' is missing"),
                ("/v1/proofs/inclusion?size=2", 400, "malformed-request", "event", "'event' is missing"),
                ("/v1/proofs/inclusion?event=L1", 400, "malformed-request", "event", "must be an event id"),
                ("/v1/proofs/inclusion?event=\(ids[0])&event=\(ids[1])", 400, "malformed-request", "event", "more than once"),
                ("/v1/proofs/inclusion?event=\(unknown)", 404, "not-found", "event", "no event \(unknown)"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=two", 400, "malformed-request", "size", "whole number"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=-1", 400, "malformed-request", "size", "whole number"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=1.5", 400, "malformed-request", "size", "whole number"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=99999999999999999999", 400, "malformed-request", "size", "whole number"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=0", 422, "validation", "size", "from 1 to 4"),
                ("/v1/proofs/inclusion?event=\(ids[0])&size=5", 422, "validation", "size", "from 1 to 4, not 5"),
                ("/v1/proofs/inclusion?event=\(ids[2])&size=2", 422, "validation", "size", "is leaf 2"),
                ("/v1/proofs/inclusion?event=\(after[0])", 422, "validation", "event", "is leaf 3, after the newest recorded checkpoint's (1) 3 events"),
                ("/v1/proofs/consistency", 400, "malformed-request", "from", "'from' is missing"),
                ("/v1/proofs/consistency?to=3", 400, "malformed-request", "from", "'from' is missing"),
                ("/v1/proofs/consistency?from=1", 400, "malformed-request", "to", "'to' is missing"),
                ("/v1/proofs/consistency?from=x&to=3", 400, "malformed-request", "from", "whole number"),
                ("/v1/proofs/consistency?from=1&to=3e0", 400, "malformed-request", "to", "whole number"),
                ("/v1/proofs/consistency?from=0&to=3", 422, "validation", "from", "at least 1 event"),
                ("/v1/proofs/consistency?from=4&to=3", 422, "validation", "from", "from (4) is after to (3)"),
                ("/v1/proofs/consistency?from=1&to=5", 422, "validation", "to", "at most 4, not 5"),
            ]
            for (target, status, kind, field, detail) in cases {
                try expectProblem(get(api, target, auditor), status, kind, field: field, detail)
            }
            // The event after the checkpoint is provable in the whole tree, when asked for.
            #expect(get(api, "/v1/proofs/inclusion?event=\(after[0])&size=4", auditor).status == 200)
        }
    }

    @Test("the kept tree is extended before answering: a proof for the head right after appends, never beyond the tree's recorded size", arguments: Kind.allCases)
    func extendsTheKeptTree(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens throws in
            let ids = try favorite(api, tokens, user: "ada", (1...20).map { "L\($0)" })
            let kept = try #require(api.application.store as? any MerkleTreeStore)
            #expect(try kept.merkleTreeState().size == 0, "nothing extended the tree yet (no follower runs here)")
            let response = get(api, "/v1/proofs/inclusion?event=\(ids[19])&size=20", tokens[.auditor])
            #expect(response.status == 200, "\(response.text)")
            #expect(try kept.merkleTreeState().size == 20, "the route extended the kept tree to the head first")
            let proof = try ProofDocument(json: Data(response.body))
            let root = try LogTree.streamedRoot(of: api.application.store, size: 20)
            #expect(throws: Never.self) { try Proofs.checkInclusion(proof, against: Checkpoint(size: 20, root: root, time: "2026-12-01T00:00:00.000000Z")) }
            #expect(get(api, "/v1/proofs/consistency?from=7&to=20", tokens[.auditor]).status == 200)
            #expect(get(api, "/v1/proofs/consistency?from=7&to=21", tokens[.auditor]).status == 422)
        }
    }

    @Test("a recorded checkpoint the tree does not have: 500, and no proof is handed out", arguments: Kind.allCases)
    func forgedRecordedCheckpoint(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens throws in
            let ids = try favorite(api, tokens, user: "ada", ["L1", "L2", "L3"])
            let sealed = try seal(api, tokens)
            // Whoever can write the store records a checkpoint with another root (the record is
            // a convenience: only a published checkpoint is evidence).
            let recording = try #require(api.application.store as? any CheckpointRecording)
            var forged = Checkpoint(size: 3, root: [UInt8](repeating: 7, count: 32), time: sealed.time)
            try forged.sign(with: try Ed25519Key.generate())
            _ = try recording.recordCheckpoint(seal: 1, checkpoint: forged)
            let latest = try object(get(api, "/v1/checkpoints/latest", tokens[.auditor]))
            #expect(latest["number"] as? Int == 2 && latest["checkpoint"] as? String == forged.text, "the route serves what is recorded")
            let response = get(api, "/v1/proofs/inclusion?event=\(ids[0])", tokens[.auditor])
            try expectProblem(response, 500, "server-error", field: nil, "does not have the root of the newest recorded checkpoint (2)")
            #expect(!response.text.contains("\"path\""), "no proof in the answer")
            #expect(get(api, "/v1/proofs/inclusion?event=\(ids[0])&size=3", tokens[.auditor]).status == 200, "a proof for a size, checked against its own tree, still holds")
        }
    }

    @Test("a recorded checkpoint rewritten to another base64 text of its root: /v1/checkpoints/latest answers 500 naming it, never the rewritten text, and no proof is bound to it", arguments: Kind.allCases)
    func rewrittenRecordedText(kind: Kind) throws {
        try withAPI(kind, sealKey: try Ed25519Key.generate()) { api, tokens, tamper throws in
            let ids = try favorite(api, tokens, user: "ada", ["L1", "L2", "L3"])
            let sealed = try seal(api, tokens)
            let root = Data(sealed.root).base64EncodedString()
            let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            var characters = Array(root)
            characters[42] = alphabet[alphabet.firstIndex(of: characters[42])! ^ 1]   // the last character before '=': its unused bit
            let other = String(characters)
            #expect(other != root && Data(base64Encoded: other) == Data(sealed.root), "another text of the same root")
            try tamper("UPDATE S.signed_checkpoints SET note = '\(sealed.text.replacingOccurrences(of: root, with: other))' WHERE checkpoint = 1;")
            let response = get(api, "/v1/checkpoints/latest", tokens[.auditor])
            try expectProblem(response, 500, "server-error", field: nil, "the recorded checkpoint 1 is not a checkpoint")
            #expect(response.text.contains("line 3: '\(other)' is not a SHA-256 root hash in canonical base64") && !response.text.contains("\"checkpoint\":"), "\(response.text)")
            try expectProblem(get(api, "/v1/proofs/inclusion?event=\(ids[0])", tokens[.auditor]), 500, "server-error", field: nil, "the recorded checkpoint 1 is not a checkpoint")
        }
    }
}
