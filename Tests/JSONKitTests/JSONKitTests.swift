import Foundation
import JSONKit
import Testing

/// The one scanner, writer and escaper: what every module that reads or writes JSON by hand
/// relies on.
@Suite struct JSONKitTests {
    @Test func theEscaperWritesWhatFoundationReadsBack() throws {
        let texts = ["plain", "quote \" and \\ backslash", "lines\n\r\ttabs", "\u{0}\u{1}\u{1B}\u{1F}", "é ü 日本 🎫", "</script> a/b", ""]
        for text in texts {
            let quoted = JSONString.quoted(text)
            let back = try JSONSerialization.jsonObject(with: Data(quoted.utf8), options: .fragmentsAllowed) as? String
            #expect(back == text, "\(quoted)")
            #expect(JSONSyntax.problem(in: Data(quoted.utf8)) == nil)
        }
        #expect(JSONString.quoted("a\u{1B}b\n/") == #""a\u001bb\n/""#)
    }

    @Test func theWriterWritesCompactJSONWithBothKindsOfNames() throws {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("n"); writer.number(-3)
        writer.key(escaping: "dyn\"amic"); writer.string("x")
        writer.key("list"); writer.beginArray(); writer.number(2.5); writer.number(10.0); writer.number(Double.nan); writer.bool(true); writer.null(); writer.endArray()
        writer.key("raw"); writer.raw(Data(#"{"a":[1]}"#.utf8))
        writer.key("maybe"); writer.string(nil as String?)
        writer.key("big"); writer.number(Int64.max)
        writer.endObject()
        #expect(writer.text == #"{"n":-3,"dyn\"amic":"x","list":[2.5,10,null,true,null],"raw":{"a":[1]},"maybe":null,"big":9223372036854775807}"#)
        #expect(JSONSyntax.problem(in: writer.data) == nil)
    }

    @Test func theScannerReadsMembersAndScalars() throws {
        let data = Data(#" {"s":"a\"b","i":-42,"d":2.5e1,"o":{"k":[1,"]",{}]},"big":123456789012345678901234,"t":null} "#.utf8)
        let object = try #require(JSONObject(data))
        #expect(object.count == 6)
        #expect(object.string("s") == "a\"b")
        #expect(object.integer("i") == -42)
        #expect(object.number("d") == 25)
        #expect(object.integer("big") == nil)
        #expect(object.number("s") == nil)
        #expect(object.object("o")?.array("k")?.count == 3)
        #expect(object.raw("t") == Data("null".utf8))
        #expect(JSONObject(Data("[1]".utf8)) == nil)
    }

    @Test func validatedMembersRefuseWhatTheScannerWouldMiss() throws {
        let good = Data(#"{"a":1,"b\u0063":"x"}"#.utf8)
        let members = try JSONSyntax.topLevelMembers(of: good).get()
        #expect(Set(members.keys) == ["a", "bc"])
        #expect(members["a"].map { good.subdata(in: $0) } == Data("1".utf8))
        let refused: [(String, String)] = [
            (#"{"a":1,"a":2}"#, "member 'a' appears twice"),
            ("[1,2]", "it is an array, not an object"),
            (#"{"a":tru}"#, "invalid literal at offset 5"),
            (#"{"a":1} x"#, "unexpected bytes after the value at offset 8"),
            (#"{"\ud800":1}"#, "a member name at offset 1 is not text"),
        ]
        for (text, reason) in refused {
            #expect(throws: JSONSyntax.JSONSyntaxError(reason: reason), "\(text)") { try JSONSyntax.topLevelMembers(of: Data(text.utf8)).get() }
        }
    }
}
