import Commands
import Foundation
@testable import HTTPAPI
import JSONKit
import Testing

/// The quick answer to "does this body have an undeclared member": taken only when the bytes
/// alone show that every top-level member is declared and has nothing inside to check; every
/// other body goes to the full check, which names what is wrong.
struct BodyShapeTests {
    @Test("a flat body of declared members is answered from its bytes; anything else goes to the full check")
    func flatDeclaredBodiesOnly() throws {
        let favorite = try #require(OpenAPIDocument.requestBodies["addFavorite"])
        let view = try #require(OpenAPIDocument.requestBodies["recordView"])
        func flat(_ shape: BodyShape, _ text: String) -> Bool { shape.flatObject(of: Data(text.utf8)) != nil }

        #expect(flat(favorite, #"{"name":"Hamilton","venue":"Pantages","localDateTime":"2026-12-05 19:30:00","category":"Music"}"#))
        #expect(flat(favorite, #"{"name":"Hamilton"}"#), "members left out are the decoder's business")
        #expect(!flat(favorite, #"{"name":"a","price":3}"#), "an undeclared member")
        #expect(!flat(favorite, #"[{"name":"a"}]"#), "not an object")
        #expect(!flat(favorite, #"{"name":"a""#), "not JSON")
        #expect(!flat(view, #"{"listingID":"L1","info":{"name":"a"}}"#), "a member with members of its own to check")
        #expect(view.undeclaredMember(in: try JSONSerialization.jsonObject(with: Data(#"{"listingID":"L1","info":{"name":"a","nam":"b"}}"#.utf8))) == "info.nam")
    }

    @Test("a plain favorite body is read from its bytes as Foundation's decoder reads it; any other is left to the decoder")
    func plainBodiesReadAsTheDecoderReadsThem() throws {
        let plain = [
            #"{"name":"Hamilton","venue":"Pantages Theatre","localDateTime":"2026-12-05 19:30:00","category":"Arts & Theatre"}"#,
            #"{ "category" : "Music" , "localDateTime":"", "venue":"Café Ünïcode ☕", "name":"x y" }"#,
        ]
        for text in plain {
            let object = try #require(JSONObject(Data(text.utf8)))
            let quick = try #require(ListingSummary(plain: object), "\(text)")
            #expect(quick == (try JSONDecoder().decode(ListingSummary.self, from: Data(text.utf8))), "\(text)")
        }
        let others = [
            #"{"name":"Ham\u0069lton","venue":"v","localDateTime":"t","category":"c"}"#,   // an escape
            #"{"name":"\ud800","venue":"v","localDateTime":"t","category":"c"}"#,           // a lone surrogate
            #"{"name":"a","venue":"v","localDateTime":"t"}"#,                                // one missing
            #"{"name":"a","venue":"v","localDateTime":"t","category":null}"#,                // not a string
            #"{"name":"a","venue":"v","localDateTime":"t","category":7}"#,
            #"{"name":"a","name":"b","venue":"v","localDateTime":"t","category":"c"}"#,      // twice
        ]
        for text in others {
            let object = try #require(JSONObject(Data(text.utf8)))
            #expect(ListingSummary(plain: object) == nil, "\(text)")
        }
    }
}
