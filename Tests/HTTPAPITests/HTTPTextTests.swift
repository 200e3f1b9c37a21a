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

    @Test("a header field is refused when its name is no token or its value holds a control character other than the tab")
    func fieldSyntax() {
        for (name, value) in [("Content-Type", "application/json"), ("X-Request-ID", "a\tb"), ("x!#$%&'*+-.^_`|~9", "é ü"), ("Accept", "")] {
            #expect(HTTPText.fieldProblem(name: Array(name.utf8), value: Array(value.utf8)) == nil, "\(name): \(value)")
        }
        #expect(HTTPText.fieldProblem(name: Array("Content-Length ".utf8), value: Array("5".utf8))
                == "the header name 'Content-Length ' has a space at byte 15, which a header name may not hold")
        #expect(HTTPText.fieldProblem(name: Array("a:b".utf8), value: [])?.contains("':' at byte 2") == true)
        #expect(HTTPText.fieldProblem(name: [0x58, 0x7F], value: [])?.contains("'X\\x7F' has byte 0x7F at byte 2") == true)
        #expect(HTTPText.fieldProblem(name: Array("X".utf8), value: [0x61, 0x00, 0x62])
                == "the value of header 'X' has byte 0x00 at byte 2, a control character a header value may not hold")
        for byte: UInt8 in [0x0D, 0x0A, 0x01, 0x1F, 0x7F] {
            #expect(HTTPText.fieldProblem(name: Array("X".utf8), value: [0x61, byte]) != nil, "\(byte)")
        }
        #expect(HTTPText.fieldProblem(name: [], value: Array("x".utf8)) == "a header has an empty name")
        #expect(HTTPText.fieldProblem(name: Array("Ünicode".utf8), value: [])?.contains("\\xC3") == true, "non-ASCII bytes are no token")
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
