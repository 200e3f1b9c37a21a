import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// What a request asks for is what it gets, or an error naming what is wrong: no parameter
/// ignored, no tag half-read, no mistyped admin member taken for an absent one.
struct APIStrictnessTests {
    static let json = ["Content-Type": "application/json"]

    func withAPI(_ body: (API) throws -> Void) throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        try body(API(application: Application(store: file.store), tokens: nil))
    }

    func put(_ api: API, _ listing: String, ifMatch: String? = nil) -> HTTPResponse {
        var headers = Self.json
        if let ifMatch { headers["If-Match"] = ifMatch }
        return api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/\(listing)", headers: headers, body: APITests.summary))
    }

    @Test("a query parameter a route does not take is a 400 naming it and what the route takes, on every route")
    func unknownQueryParameters() throws {
        try withAPI { api in
            for (target, parameter, takes) in [("/v1/users/ada/listings/L1?as-of=0", "as-of", "it takes no query parameters"),
                                               ("/v1/users/ada/favorites?limit=3", "limit", "it takes 'as-of'"),
                                               ("/v1/log?after=0&aftr=3", "aftr", "it takes 'after', 'limit'"),
                                               ("/healthz?x", "x", "it takes no query parameters")] {
                let response = api.respond(to: HTTPRequest(method: "GET", target: target))
                #expect(response.status == 400 && response.text.contains(#""field":"\#(parameter)""#) && response.text.contains(takes), "\(target): \(response.text)")
            }
            let refused = api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L1?dry-run=1", headers: Self.json, body: APITests.summary))
            #expect(refused.status == 400, "\(refused.text)")
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).text == #"{"items":[]}"#, "the refused PUT recorded nothing")
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/log?after=0&limit=2")).status == 200)
        }
    }

    @Test("every route's query parameters come from openapi.json: each route has its entry there")
    func everyRouteHasItsDeclaredParameters() throws {
        let names = API.routes.map(\.name)
        #expect(names.count > 20 && names.allSatisfy { OpenAPIDocument.declaresQueryParameters(ofOperation: $0) }, "\(names)")
        #expect(!OpenAPIDocument.declaresQueryParameters(ofOperation: "noSuchOperation"))
    }

    @Test("If-Match: a list matches any of its versions; weak, padded or signed tags name none and get a 412 with the current ETag")
    func ifMatchLists() throws {
        try withAPI { api in
            #expect(put(api, "L1").status == 201)
            #expect(put(api, "L2").status == 201)
            let listed = put(api, "L3", ifMatch: #""1", "2""#)
            #expect(listed.status == 201 && listed.header("ETag") == #""3""#, "a list holding the current version: \(listed.text)")
            let missed = put(api, "L4", ifMatch: #""1", "2""#)
            #expect(missed.status == 412 && missed.header("ETag") == #""3""#, "\(missed.text)")
            for tag in [#"W/"3""#, #""03""#, #""+3""#, "garbage", #""""#, "W/*"] {
                let response = put(api, "L5", ifMatch: tag)
                #expect(response.status == 412 && response.header("ETag") == #""3""#, "\(tag): \(response.text)")
            }
            // A retry of a request recorded with a list replays its first outcome, as with one version.
            let keyed = HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L8", headers: Self.json.merging(["If-Match": #""1", "3""#, "Idempotency-Key": "k-8"]) { $1 }, body: APITests.summary)
            let first = api.respond(to: keyed)
            #expect(first.status == 201 && first.header("ETag") == #""4""#, "\(first.text)")
            let retried = api.respond(to: keyed)
            #expect(retried.status == 201 && retried.header("Idempotent-Replayed") == "true" && retried.text.contains(#""version":4"#), "\(retried.text)")
            #expect(put(api, "L6", ifMatch: #""4""#).status == 201)
            #expect(put(api, "L7", ifMatch: "*").status == 201)
        }
    }

    @Test("an answer as of a past point carries no ETag; the current one does")
    func pastAnswersHaveNoETag() throws {
        try withAPI { api in
            #expect(put(api, "L1").status == 201)
            let past = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites?as-of=0"))
            #expect(past.status == 200 && past.text == #"{"items":[]}"# && past.header("ETag") == nil, "\(past.text)")
            let history = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?as-of=0"))
            #expect(history.status == 200 && history.header("ETag") == nil)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).header("ETag") == #""1""#)
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history")).header("ETag") == #""1""#)
        }
    }

    @Test("history: a type of the wrong case, a type no event has, or since after until, is a 422 naming it, not an empty page")
    func historyFiltersThatCannotMatch() throws {
        try withAPI { api in
            #expect(put(api, "L1").status == 201)
            let wrongCase = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=favorited"))
            #expect(wrongCase.status == 422 && wrongCase.text.contains("type 'favorited' is not a type of the log") && wrongCase.text.contains("did you mean 'Favorited'?"), "\(wrongCase.text)")
            let other = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=Note"))
            #expect(other.status == 422 && other.text.contains("no event of user 'ada' has type 'Note'"), "a type neither evtool's nor in the user's events: \(other.text)")
            let typo = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=Favourite"))
            #expect(typo.status == 422 && typo.text.contains("did you mean 'Favorited'?"), "a misspelt type names the nearest of evtool's: \(typo.text)")
            let backwards = api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?since=2027-01-01&until=2026-01-01"))
            #expect(backwards.status == 422 && backwards.text.contains("is after until"), "\(backwards.text)")
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/history?type=Favorited")).text.contains(#""type":"Favorited""#))
        }
    }

    @Test("admin bodies: an unknown member, a view named twice or none is a 422, and nothing is rebuilt or erased")
    func strictAdminBodies() throws {
        try withAPI { api in
            #expect(put(api, "L1").status == 201)
            for body in [#"{"viewz":["favorites"]}"#, #"{"views":["favorites","favorites"]}"#, #"{"views":[]}"#] {
                let response = api.respond(to: HTTPRequest(method: "POST", target: "/v1/admin/rebuild", headers: Self.json, body: Array(body.utf8)))
                #expect(response.status == 422 && response.text.contains("/problems/validation"), "\(body): \(response.text)")
            }
            #expect(api.respond(to: HTTPRequest(method: "POST", target: "/v1/admin/rebuild", headers: Self.json, body: Array(#"{"views":["favorites"]}"#.utf8))).status == 200)
            for body in [#"{"reason":"GDPR","bye":"x"}"#, "{\"reason\":\"a\\u0000b\"}", #"{"reason":"   "}"#, #"{"reason":"\#(String(repeating: "x", count: 2_001))"}"#] {
                let response = api.respond(to: HTTPRequest(method: "POST", target: "/v1/admin/users/ada/forget", headers: Self.json, body: Array(body.utf8)))
                #expect(response.status == 422, "\(body.prefix(40)): \(response.text)")
            }
            #expect(api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites")).text.contains("L1"), "ada was not erased")
        }
    }

    @Test("a body of the wrong shape is named in JSON's words: a path with indexes, 'must be a number', an out-of-range number a 422")
    func decodingFailuresInJSONWords() throws {
        try withAPI { api in
            let cases: [(String, String, String?)] = [
                (#"{"keyword":"x","location":"y","results":{"count":1.5,"listingIDs":[]}}"#, "a fraction where a whole number must be", nil),
                (#"{"keyword":"a\ud800","location":"LA"}"#, "a lone surrogate", nil),
                (#"{"keyword":"x","location":"y","results":{"count":"3","listingIDs":[]}}"#, "'results.count' must be a whole number", "results.count"),
                (#"{"keyword":"x","location":"y","results":{"count":3,"listingIDs":[7]}}"#, "'results.listingIDs[0]' must be a string", "results.listingIDs[0]"),
                (#"{"keyword":"x","location":"y","distance":"far"}"#, "'distance' must be a number", "distance"),
                (#"[]"#, "the document must be an object", nil),
                (#"{"keyword":"x","keyword":"y","location":"LA"}"#, "'keyword' is given twice", "keyword"),
                (#"{"keyword":"x","location":"LA","results":{"count":1,"listingIDs":["L1"],"count":2}}"#, "'results.count' is given twice", "results.count"),
                (#"{"keyword":"x","location":"y","distance":1e999}"#, "number", nil),
            ]
            for (body, words, field) in cases {
                let response = api.respond(to: HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: Self.json, body: Array(body.utf8)))
                #expect(response.status == 422 && response.text.contains(words), "\(body): \(response.text)")
                #expect(!response.text.contains("Dictionary") && !response.text.contains("Double") && !response.text.contains("Index 0"), "\(response.text)")
                if let field { #expect(response.text.contains(#""field":"\#(field)""#), "\(response.text)") } else { #expect(!response.text.contains(#""field""#), "\(response.text)") }
            }
        }
    }
}
