import EventLog
import Foundation
import Testing
import Transfer

/// Import's line decoding: fields that need no JSON decoding are read straight from the line's
/// bytes, and every other string (escapes, control characters, bad UTF-8) still goes through
/// the JSON parser, with the same result and the same errors as before.
@Suite("import lines: string fields decoded without a parser when they need none")
struct LogRecordDecodingTests {
    static func line(stream: String, type: String, id: String = #""0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b""#) -> Data {
        Data(#"{"position":1,"stream":\#(stream),"version":1,"id":\#(id),"type":\#(type),"recordedAt":"2026-11-30T11:15:21.123456Z","data":{"q":"x"},"metadata":{}}"#.utf8)
    }

    @Test("plain and escaped strings give what a JSON parser gives", arguments: [
        (#""user-1""#, "user-1"), (#""a\"b""#, "a\"b"), (#""back\\slash""#, "back\\slash"), (#""\u00e9t\u00e9""#, "été"),
        (#""été 🎉 עברית""#, "été 🎉 עברית"), (#""tab\there""#, "tab\there"), (#""\ud83c\udf89""#, "🎉"), (#""""#, ""),
    ])
    func strings(json: String, expected: String) throws {
        let imported = try LogRecord.parse(Self.line(stream: json, type: json))
        #expect(imported.stream == expected)
        #expect(imported.event.type == expected)
    }

    @Test("what is not a plain string is refused as before", arguments: [
        (#""a"#, nil as String?), ("42", "'stream' must be a string"), ("[\"s\"]", "'stream' must be a string"),
        // Unescaped control characters: the line's own scan refuses them before any field is read.
        ("\"raw\ttab\"", nil), ("\"bad \u{1}\"", nil),
    ])
    func refused(json: String, reason: String?) throws {
        do {
            _ = try LogRecord.parse(Self.line(stream: json, type: #""T""#))
            Issue.record("accepted \(json)")
        } catch {
            if let reason { #expect(error.reason == reason) }
        }
    }

    @Test("invalid UTF-8 inside quotes goes to the parser, which refuses it")
    func invalidUTF8() throws {
        var bytes = Array(Self.line(stream: #""user-X""#, type: #""T""#))
        let index = try #require(bytes.firstIndex(of: UInt8(ascii: "X")))
        bytes[index] = 0xFF
        #expect(throws: LogRecord.LineError.self) { try LogRecord.parse(Data(bytes)) }
    }

    @Test("event ids in either case, as UUID(uuidString:) reads them")
    func ids() throws {
        let upper = try LogRecord.parse(Self.line(stream: #""s""#, type: #""T""#, id: #""0190A1B2-C3D4-7E5F-8A9B-0C1D2E3F4A5B""#))
        #expect(upper.event.id == UUID(uuidString: "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"))
        #expect(throws: LogRecord.LineError.self) { try LogRecord.parse(Self.line(stream: #""s""#, type: #""T""#, id: #""not-a-uuid""#)) }
    }

    @Test("a line that is a slice of a bigger buffer decodes the same")
    func sliced() throws {
        let whole = Data("garbage\n".utf8) + Self.line(stream: #""user-7""#, type: #""Searched""#)
        let slice = whole[8...]
        #expect(slice.startIndex == 8)
        let imported = try LogRecord.parse(slice)
        #expect(imported.stream == "user-7" && imported.event.type == "Searched")
    }
}
