import HTTPAPI
import Testing

/// HTTP's case-insensitive words and optional white space, on bytes: what the fast path keeps
/// of the old Foundation calls, and what a request may send.
struct HTTPTextTests {
    @Test("ASCII letters are lowercased, other bytes kept; text with no uppercase letter comes back as it is")
    func lowercasing() {
        #expect(HTTPText.lowercased("Content-Type") == "content-type")
        #expect(HTTPText.lowercased("X-REQUEST-ID") == "x-request-id")
        #expect(HTTPText.lowercased("authorization") == "authorization")
        #expect(HTTPText.lowercased("") == "")
        #expect(HTTPText.lowercased("Zoë-[AZ]@`{") == "zoë-[az]@`{", "bytes next to A–Z in ASCII and non-ASCII letters are not letters to it")
    }

    @Test("a word matches in any ASCII case and only at its whole length")
    func caseInsensitiveWords() {
        for text in ["bearer", "Bearer", "BEARER", "bEaReR"] { #expect(HTTPText.equalsIgnoringCase(text, "bearer"), "\(text)") }
        for text in ["bear", "bearers", "", "bearer ", "Basic", "béarer"] { #expect(!HTTPText.equalsIgnoringCase(text, "bearer"), "\(text)") }
        #expect(HTTPText.equalsIgnoringCase("x Bearer y".split(separator: " ")[1], "bearer"), "a substring")
    }

    @Test("spaces and tabs go from both ends, nothing else")
    func trimming() {
        #expect(HTTPText.trimmed("  evt_1\t") == "evt_1")
        #expect(HTTPText.trimmed("\t \t") == "")
        #expect(HTTPText.trimmed("") == "")
        #expect(HTTPText.trimmed("a b") == "a b")
        #expect(HTTPText.trimmed("\nx\r") == "\nx\r", "line breaks are not HTTP's optional white space")
    }

    @Test("through the API: the scheme in any case and white space around the token are accepted; other schemes and a bad token are 401; a media type in any case with parameters is JSON")
    func requestsInAnyCase() throws {
        let app = TokenFile.newToken()
        let tokens = try TokenFile(parsing: TokenFile.line(for: app, role: .app, name: "t") + "\n", path: "tokens.txt")
        try APITests().withAPI(tokens: tokens) { api, store throws in
            let read = { (authorization: String) in
                api.respond(to: HTTPRequest(method: "GET", target: "/v1/users/ada/favorites", headers: ["AUTHORIZATION": authorization])).status
            }
            for header in ["Bearer " + app, "bearer " + app, "BEARER  " + app + "\t", "Bearer \t" + app + " "] { #expect(read(header) == 200, "\(header)") }
            for header in ["Basic " + app, "Bearer", "Bearer " + app + "x", "Bearer x " + app, "Bearer\t" + app, app] { #expect(read(header) == 401, "\(header)") }
            let put = { (type: String) in
                api.respond(to: HTTPRequest(method: "PUT", target: "/v1/users/ada/favorites/L\(type.count)",
                                            headers: ["Authorization": "Bearer " + app, "content-TYPE": type], body: APITests.summary)).status
            }
            #expect(put("Application/JSON ; charset=utf-8") == 201)
            #expect(put("application/json") == 201)
            #expect(put("text/json") == 415)
            #expect(try store.headPosition() == 2)
        }
    }
}
