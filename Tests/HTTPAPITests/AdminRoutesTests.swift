import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Synchronization
import Testing
import TestSupport

/// The admin routes as pure functions on both stores: the role matrix, what each answers, the
/// signed checkpoint of a server with a seal key, and one audit line per operation.
@Suite("Admin routes")
struct AdminRoutesTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let json = ["Content-Type": "application/json"]
    static let summary = Array(#"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)

    /// An API with an app, an auditor and an admin token over a fresh store, and its audit lines.
    func withAPI(_ kind: Kind, sealKey: Ed25519Key? = nil, _ body: (API, [Role: String], @Sendable () -> [String]) throws -> Void) throws {
        var tokens: [Role: String] = [:]
        var text = ""
        for role in Role.allCases {
            let token = TokenFile.newToken()
            tokens[role] = token
            text += TokenFile.line(for: token, role: role, user: role == .user ? "ada" : nil, name: "ops-\(role.rawValue)") + "\n"
        }
        let file = try TokenFile(parsing: text, path: "tokens.txt")
        let lines = Mutex<[String]>([])
        let audit: @Sendable (String) -> Void = { line in lines.withLock { $0.append(line) } }
        let read: @Sendable () -> [String] = { lines.withLock { $0 } }
        switch kind {
        case .sqlite:
            let sqlite = try TestStores.sqliteFile()
            defer { sqlite.cleanup() }
            try body(API(application: Application(store: sqlite.store), tokens: file, sealKey: sealKey, auditLog: audit), tokens, read)
        case .postgres:
            let postgres = try TestStores.postgres()
            defer { postgres.cleanup() }
            try body(API(application: Application(store: postgres.store), tokens: file, sealKey: sealKey, auditLog: audit), tokens, read)
        }
    }

    func request(_ method: String, _ target: String, token: String?, body: [UInt8] = []) -> HTTPRequest {
        var headers = token.map { ["Authorization": "Bearer \($0)"] } ?? [:]
        if !body.isEmpty { headers.merge(Self.json) { $1 } }
        return HTTPRequest(method: method, target: target, headers: headers, body: body)
    }

    func object(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any], "\(response.text)")
    }

    @Test("app and auditor get 403 on every admin route, no token 401; nothing happens and nothing is audited", arguments: Kind.allCases)
    func roleMatrix(kind: Kind) throws {
        try withAPI(kind) { api, tokens, audit throws in
            #expect(api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", token: tokens[.app], body: Self.summary)).status == 201)
            let routes: [(String, [UInt8])] = [("/v1/admin/rebuild", []), ("/v1/admin/seal", []), ("/v1/admin/users/ada/forget", Array(#"{"reason":"ticket 7"}"#.utf8))]
            for (path, body) in routes {
                for role in [Role.app, .auditor] {
                    let response = api.respond(to: request("POST", path, token: tokens[role], body: body))
                    #expect(response.status == 403 && response.text.contains("/problems/forbidden") && response.text.contains("roles that may: admin"), "\(role) \(path): \(response.text)")
                }
                #expect(api.respond(to: request("POST", path, token: nil, body: body)).status == 401)
                #expect(api.respond(to: request("GET", path, token: tokens[.admin])).status == 405, "\(path) takes POST only")
            }
            #expect(try api.application.store.headPosition() == 1, "no erasure, no seal")
            let favorites = api.respond(to: request("GET", "/v1/users/ada/favorites", token: tokens[.app]))
            #expect(favorites.text.contains("L1"))
            #expect(audit().isEmpty, "refused by role before any operation: \(audit())")
        }
    }

    @Test("admin rebuilds, seals (signed with the server's key) and forgets; each writes an audit line", arguments: Kind.allCases)
    func adminOperations(kind: Kind) throws {
        let key = try Ed25519Key.generate()
        try withAPI(kind, sealKey: key) { api, tokens, audit throws in
            let admin = tokens[.admin]
            for listing in ["L1", "L2"] {
                #expect(api.respond(to: request("PUT", "/v1/users/ada/favorites/\(listing)", token: tokens[.app], body: Self.summary)).status == 201)
            }
            #expect(api.respond(to: request("PUT", "/v1/users/bob/favorites/L1", token: tokens[.app], body: Self.summary)).status == 201)

            let rebuilt = api.respond(to: request("POST", "/v1/admin/rebuild", token: admin, body: Array(#"{"views":["favorites"]}"#.utf8)))
            #expect(rebuilt.status == 200, "\(rebuilt.text)")
            let views = try #require(try object(rebuilt)["views"] as? [[String: Any]])
            #expect(views.count == 1 && views[0]["name"] as? String == "favorites" && views[0]["documents"] as? Int == 2, "\(rebuilt.text)")
            #expect(try object(rebuilt)["head"] as? Int == 3)
            let unknown = api.respond(to: request("POST", "/v1/admin/rebuild", token: admin, body: Array(#"{"views":["favourites"]}"#.utf8)))
            #expect(unknown.status == 422 && unknown.text.contains(#""field":"views""#), "\(unknown.text)")

            let sealed = api.respond(to: request("POST", "/v1/admin/seal", token: admin))
            #expect(sealed.status == 201, "\(sealed.text)")
            let seal = try object(sealed)
            #expect(seal["number"] as? Int == 1 && seal["position"] as? Int == 3 && seal["events"] as? Int == 3 && seal["streams"] as? Int == 2, "\(sealed.text)")
            #expect(seal["signed"] as? Bool == true)
            #expect(Set(seal.keys) == ["number", "position", "events", "streams", "hash", "previousHash", "sealedAt", "checkpoint", "signed"], "\(sealed.text)")
            let checkpoint = try Checkpoint(text: try #require(seal["checkpoint"] as? String))
            #expect(checkpoint.size == 3)
            #expect(throws: Never.self) { try checkpoint.verifySignature(try Ed25519Key(publicKey: key.publicKey)) }

            let forgot = api.respond(to: request("POST", "/v1/admin/users/ada/forget", token: admin, body: Array(#"{"reason":"GDPR ticket 9"}"#.utf8)))
            #expect(forgot.status == 200, "\(forgot.text)")
            let erasure = try object(forgot)
            #expect(erasure["erasedEvents"] as? Int == 2 && erasure["by"] as? String == "ops-admin" && erasure["position"] as? Int == 5, "\(forgot.text)")
            #expect((erasure["walEmptied"] is NSNull) == (kind == .postgres) && erasure["rebuiltThrough"] as? Int == 5, "\(forgot.text)")
            #expect(Set(erasure.keys) == ["user", "erasedEvents", "position", "eventID", "recorded", "by", "rebuiltThrough", "walEmptied", "archived"], "\(forgot.text)")
            let favorites = api.respond(to: request("GET", "/v1/users/ada/favorites", token: tokens[.app]))
            #expect(favorites.text == #"{"items":[]}"#, "the erased user's views are empty at once: \(favorites.text)")
            let again = api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", token: tokens[.app], body: Self.summary))
            #expect(again.status == 201, "the runner forgot the erased user's cached state: \(again.text)")
            let nobody = api.respond(to: request("POST", "/v1/admin/users/nobody/forget", token: admin, body: Array(#"{"reason":"x"}"#.utf8)))
            #expect(nobody.status == 404, "\(nobody.text)")

            let lines = audit()
            #expect(lines.count == 5, "\(lines)")
            #expect(lines.contains { $0.hasPrefix("audit: ") && $0.hasSuffix(" admin 'ops-admin' rebuild favorites: rebuilt favorites (2 documents) through position 3\n") }, "\(lines)")
            #expect(lines.contains { $0.contains(" admin 'ops-admin' rebuild favourites: refused 422 no view named 'favourites'") }, "\(lines)")
            #expect(lines.contains { $0.contains(" admin 'ops-admin' seal: sealed: seal 1 at position 3 (3 events in 2 streams) ") && $0.hasSuffix(", checkpoint signed\n") }, "\(lines)")
            #expect(lines.contains { $0.hasSuffix(" admin 'ops-admin' forget user 'ada' by 'ops-admin': erased 2 events (UserErased at position 5); views rebuilt through 5\n") }, "\(lines)")
            #expect(lines.contains { $0.contains(" forget user 'nobody' by 'ops-admin': refused 404 user 'nobody' has no events to erase") }, "\(lines)")
            #expect(!lines.contains { $0.contains("GDPR") }, "the reason is in the log, not in the audit lines")
        }
    }

    @Test("seal on an empty store is a 409 that records nothing", arguments: Kind.allCases)
    func sealEmptyStore(kind: Kind) throws {
        try withAPI(kind) { api, tokens, _ throws in
            let response = api.respond(to: request("POST", "/v1/admin/seal", token: tokens[.admin]))
            #expect(response.status == 409 && response.text.contains("nothing to seal"), "\(response.text)")
            #expect(try api.application.store.headPosition() == 0)
        }
    }
}
