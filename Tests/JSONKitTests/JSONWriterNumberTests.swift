import Foundation
import JSONKit
import Testing

/// The writer formats whole numbers by hand (no `String` made per number): the digits must be
/// exactly those of `String(value)`, and a whole `Double` below 1e15 is written as that integer.
@Suite struct JSONWriterNumberTests {
    private func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return writer.text
    }

    @Test("property: integers of every size and sign are written as String(value) writes them")
    func integersEqualStringConversion() {
        var random = SystemRandomNumberGenerator()
        var values: [Int64] = [0, 1, -1, 9, 10, -9, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        for digits in 1...18 {
            let power = (0..<digits).reduce(Int64(1)) { value, _ in value * 10 }
            values += [power, power - 1, -power, -(power - 1)]
        }
        for _ in 0..<20_000 { values.append(Int64.random(in: Int64.min...Int64.max, using: &random) >> Int64.random(in: 0...63, using: &random)) }
        for value in values {
            #expect(written { $0.number(value) } == String(value), "\(value)")
            #expect(written { $0.number(Int(value)) } == String(value), "\(value)")
        }
    }

    @Test("whole doubles below 1e15 are written as integers, the others in Swift's shortest form")
    func doubles() {
        let cases: [(Double, String)] = [
            (0, "0"), (-0.0, "0"), (10, "10"), (-118, "-118"), (999_999_999_999_999, "999999999999999"), (-999_999_999_999_999, "-999999999999999"),
            (1e15, String(1e15)), (1e300, String(1e300)), (2.5, "2.5"), (34.0224, "34.0224"), (1e-06, "1e-06"), (.infinity, "null"), (.nan, "null"),
        ]
        for (value, text) in cases { #expect(written { $0.number(value) } == text, "\(value)") }
        // Separators still go where they belong.
        #expect(written { writer in writer.beginArray(); writer.number(-7); writer.number(Int64(12)); writer.number(3.0); writer.endArray() } == "[-7,12,3]")
    }

    @Test("a writer emptied with removeAll writes the next document as a fresh one does")
    func reuse() {
        var writer = JSONWriter()
        writer.beginObject(); writer.key("a"); writer.number(1)
        writer.removeAll()
        writer.beginObject(); writer.key("b"); writer.raw(Data("[1,2]".utf8)); writer.key("c"); writer.bool(true); writer.endObject()
        #expect(writer.text == #"{"b":[1,2],"c":true}"#)
    }
}
