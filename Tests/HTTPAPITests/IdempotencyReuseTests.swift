import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// An `Idempotency-Key` names one request of one user: repeating that request replays its first
/// outcome, sending another request under the same key is a 422 that records nothing, and the
/// same key used by another user is that user's own request.
@Suite("Idempotency-Key reused")
struct IdempotencyReuseTests {
    enum Kind: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let json = ["Content-Type": "application/json"]
    static func summary(_ name: String) -> [UInt8] {
        Array(#"{"name":"\#(name)","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#.utf8)
    }

    func withAPI(_ kind: Kind, _ body: (API, any EventStore) throws -> Void) throws {
        switch kind {
        case .sqlite:
            let file = try TestStores.sqliteFile()
            defer { file.cleanup() }
            try body(API(application: Application(store: file.store), tokens: nil), file.store)
        case .postgres:
            let database = try TestStores.postgres()
            defer { database.cleanup() }
            try body(API(application: Application(store: database.store), tokens: nil), database.store)
        }
    }

    func request(_ method: String, _ target: String, key: String, body: [UInt8] = []) -> HTTPRequest {
        var headers = ["Idempotency-Key": key]
        if !body.isEmpty { headers.merge(Self.json) { $1 } }
        return HTTPRequest(method: method, target: target, headers: headers, body: body)
    }

    /// The problem document's members, parsed.
    func problem(_ response: HTTPResponse) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test("the same key with another body is a 422 naming the key; the first outcome still replays", arguments: Kind.allCases)
    func otherBody(kind: Kind) throws {
        try withAPI(kind) { api, store throws in
            let first = api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", key: "k-1", body: Self.summary("Hamilton")))
            #expect(first.status == 201, "\(first.text)")
            let other = api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", key: "k-1", body: Self.summary("Wicked")))
            #expect(other.status == 422, "\(other.text)")
            #expect(other.header("Content-Type") == "application/problem+json")
            let document = try problem(other)
            #expect(document["type"] as? String == "/problems/idempotency-key-reused")
            #expect(document["field"] as? String == "Idempotency-Key")
            #expect((document["detail"] as? String)?.contains("request id 'k-1' was already used by another request of user 'ada' (a Favorited of listing 'L1')") == true, "\(other.text)")
            #expect(try store.headPosition() == 1, "a reused key records nothing")
            let again = api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", key: "k-1", body: Self.summary("Hamilton")))
            #expect(again.status == 201 && again.header("Idempotent-Replayed") == "true", "\(again.text)")
            #expect(again.text == first.text.replacingOccurrences(of: #""replayed":false"#, with: #""replayed":true"#))
        }
    }

    @Test("the same key on another route or for another listing is a 422; another listing's search body too", arguments: Kind.allCases)
    func otherRouteOrListing(kind: Kind) throws {
        try withAPI(kind) { api, store throws in
            #expect(api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", key: "k-2", body: Self.summary("Hamilton"))).status == 201)
            let remove = api.respond(to: request("DELETE", "/v1/users/ada/favorites/L1", key: "k-2"))
            #expect(remove.status == 422 && remove.text.contains("idempotency-key-reused"), "\(remove.text)")
            let otherListing = api.respond(to: request("PUT", "/v1/users/ada/favorites/L2", key: "k-2", body: Self.summary("Hamilton")))
            #expect(otherListing.status == 422 && otherListing.text.contains("idempotency-key-reused"), "\(otherListing.text)")
            let search = api.respond(to: request("POST", "/v1/users/ada/searches", key: "k-2", body: Array(#"{"keyword":"jazz","location":"Los Angeles"}"#.utf8)))
            #expect(search.status == 422 && search.text.contains("idempotency-key-reused"), "\(search.text)")

            let first = api.respond(to: request("POST", "/v1/users/ada/searches", key: "k-3", body: Array(#"{"keyword":"jazz","location":"Los Angeles"}"#.utf8)))
            #expect(first.status == 201)
            let otherKeyword = api.respond(to: request("POST", "/v1/users/ada/searches", key: "k-3", body: Array(#"{"keyword":"opera","location":"Los Angeles"}"#.utf8)))
            #expect(otherKeyword.status == 422 && otherKeyword.text.contains("(a Searched)"), "\(otherKeyword.text)")
            // The same search, its fields in another order and its id in the same form: the same request.
            let same = api.respond(to: request("POST", "/v1/users/ada/searches", key: "k-3", body: Array(#"{"location":"Los Angeles","keyword":"jazz"}"#.utf8)))
            #expect(same.status == 201 && same.header("Idempotent-Replayed") == "true", "\(same.text)")
            #expect(try store.headPosition() == 2, "only the two first requests recorded anything")
        }
    }

    @Test("the same key for another user is that user's own request", arguments: Kind.allCases)
    func otherUser(kind: Kind) throws {
        try withAPI(kind) { api, store throws in
            let ada = api.respond(to: request("PUT", "/v1/users/ada/favorites/L1", key: "k-4", body: Self.summary("Hamilton")))
            let bob = api.respond(to: request("PUT", "/v1/users/bob/favorites/L9", key: "k-4", body: Self.summary("Wicked")))
            #expect(ada.status == 201 && bob.status == 201 && bob.header("Idempotent-Replayed") == nil, "\(bob.text)")
            #expect(try store.headPosition() == 2)
            let bobAgain = api.respond(to: request("PUT", "/v1/users/bob/favorites/L9", key: "k-4", body: Self.summary("Wicked")))
            #expect(bobAgain.status == 201 && bobAgain.header("Idempotent-Replayed") == "true", "\(bobAgain.text)")
            let bobOther = api.respond(to: request("PUT", "/v1/users/bob/favorites/L1", key: "k-4", body: Self.summary("Hamilton")))
            #expect(bobOther.status == 422, "bob's key names bob's request, not ada's: \(bobOther.text)")
        }
    }
}
