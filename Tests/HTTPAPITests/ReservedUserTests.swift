import EventLog
import EvtoolKit
import Foundation
import HTTPAPI
import Testing
import TestSupport

/// The HTTP API's `/v1/users/{user}` routes refuse a user id that names one of evtool's own
/// streams (`$erasures`): a 422 validation problem, nothing recorded, nothing of the erasure log read.
struct ReservedUserTests {
    @Test("every route naming a user (/v1/users/{user}, the audit page, forget) answers a reserved user id ($erasures, %24erasures, $x) with a 422 naming it; nothing is recorded")
    func reservedUserIDs() throws {
        let file = try TestStores.sqliteFile()
        defer { file.cleanup() }
        let application = Application(store: file.store)
        let api = API(application: application, tokens: nil)
        let json = ["Content-Type": "application/json"]
        let recorded = api.respond(to: HTTPRequest(method: "POST", target: "/v1/users/ada/searches", headers: json,
                                                   body: Array(#"{"keyword":"jazz","location":"Chicago"}"#.utf8)))
        try #require(recorded.status == 201, "\(recorded.text)")
        _ = try application.forget(user: "ada", reason: "GDPR", operatorName: "dpo")
        let head = try file.store.headPosition()
        for user in ["$erasures", "%24erasures", "$x"] {
            let requests = [
                HTTPRequest(method: "POST", target: "/v1/users/\(user)/searches", headers: json, body: Array(#"{"keyword":"jazz","location":"Chicago"}"#.utf8)),
                HTTPRequest(method: "PUT", target: "/v1/users/\(user)/favorites/L1", headers: json, body: APITests.summary),
                HTTPRequest(method: "DELETE", target: "/v1/users/\(user)/favorites/L1"),
                HTTPRequest(method: "POST", target: "/v1/users/\(user)/views", headers: json, body: Array(#"{"listingID":"L1","info":{"name":"Wicked","artistsOrTeams":[],"venue":"Gershwin","category":"Arts & Theatre","genres":[]},"upcomingEvents":[]}"#.utf8)),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/favorites"),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/recent-searches"),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/recently-viewed"),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/listings/L1"),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/history"),
                HTTPRequest(method: "GET", target: "/v1/users/\(user)/events"),
                HTTPRequest(method: "GET", target: "/v1/audit/users/\(user)"),
                HTTPRequest(method: "POST", target: "/v1/admin/users/\(user)/forget", headers: json, body: Array(#"{"reason":"ticket 7"}"#.utf8)),
            ]
            for request in requests {
                let response = api.respond(to: request)
                #expect(response.status == 422 && response.text.contains(#""type":"/problems/validation""#), "\(request.method) \(request.path): \(response.text)")
                #expect(response.text.contains("is reserved"), "\(request.method) \(request.path): \(response.text)")
                #expect(!response.text.contains("dpo"), "nothing of the erasure log is read: \(response.text)")
            }
        }
        #expect(try file.store.headPosition() == head, "nothing recorded by a refused request")
    }
}
