import EventLog
import Foundation
import Testing

/// The JSON form of a proof (`evtool prove --json`, `/v1/proofs`): pure, no store.
@Suite("Proof documents as JSON")
struct ProofDocumentJSONTests {
    static let entry = [UInt8](repeating: 0xAB, count: 32)
    static let previous = [UInt8](repeating: 0, count: 32)
    static let path = [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32)]
    static let event = UUID(uuidString: "0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f")!

    @Test("both proofs round-trip through JSON and the text form; the JSON names every member as the text does")
    func roundTrips() throws {
        let inclusion = ProofDocument.inclusion(index: 3, size: 12, event: Self.event, entry: Self.entry, previous: Self.previous, path: Self.path)
        let consistency = ProofDocument.consistency(from: 5, to: 12, path: Self.path)
        #expect(inclusion.json == #"{"proof":"inclusion","index":3,"size":12,"event":"0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f","entry":"\#(Self.entry.hexString)","previous":"\#(Self.previous.hexString)","path":["AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=","AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="]}"#)
        #expect(consistency.json == #"{"proof":"consistency","from":5,"to":12,"path":["AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=","AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI="]}"#)
        for proof in [inclusion, consistency, .consistency(from: 4, to: 4, path: [])] {
            #expect(try ProofDocument(json: Data(proof.json.utf8)) == proof)
            #expect(try ProofDocument(reading: proof.json) == proof)
            #expect(try ProofDocument(reading: "\n  " + proof.json + "\n") == proof)
            #expect(try ProofDocument(reading: proof.text) == proof, "the text form still reads")
        }
    }

    @Test("a malformed JSON proof names the member that is wrong")
    func malformed() {
        let good = ProofDocument.inclusion(index: 3, size: 12, event: Self.event, entry: Self.entry, previous: Self.previous, path: Self.path).json
        let cases: [(String, String)] = [
            ("{", "not a JSON object"),
            ("{\"proof\": 7}", "'proof' is not a string"),
            (#"{"index":1}"#, "no 'proof'"),
            (#"{"proof":"inclusion","path":[]}"#, "the JSON inclusion proof has no 'index'"),
            (good.replacingOccurrences(of: #""event":"0193a5c2-7d41-7c3e-9f00-1a2b3c4d5e6f","#, with: ""), "the JSON inclusion proof has no 'event'"),
            (#"{"proof":"consistency","from":1,"path":[]}"#, "the JSON consistency proof has no 'to'"),
            (#"{"proof":"consistency","from":1,"to":2}"#, "no 'path'"),
            (#"{"proof":"audit","path":[]}"#, "'proof' is 'audit', not 'inclusion' or 'consistency'"),
            (good.replacingOccurrences(of: #""index":3"#, with: #""index":-3"#), "'index' is not a whole number"),
            (good.replacingOccurrences(of: #""size":12"#, with: #""size":"12""#), "'size' is not a whole number"),
            (good.replacingOccurrences(of: #""size":12"#, with: #""size":1.5"#), "'size' is not a whole number"),
            (good.replacingOccurrences(of: #""size":12"#, with: #""size":99999999999999999999"#), "'size' is not a whole number"),
            (good.replacingOccurrences(of: #""path":["#, with: #""path":"AQ==","x":["#), "'path' is not an array"),
            (good.replacingOccurrences(of: "0193a5c2-", with: "x-"), "'event' ('x-7d41-7c3e-9f00-1a2b3c4d5e6f') is not an event id"),
            (good.replacingOccurrences(of: Self.entry.hexString, with: "abc"), "'entry' is not a chain hash (64 lower-case hex digits)"),
            (good.replacingOccurrences(of: "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=", with: "AgI="), "'path.1' is not a SHA-256 hash in canonical base64"),
            // Another text of the same bytes, as a served answer could be rewritten: refused too.
            (good.replacingOccurrences(of: Self.entry.hexString, with: Self.entry.hexString.uppercased()), "'entry' is not a chain hash (64 lower-case hex digits)"),
            (good.replacingOccurrences(of: "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=", with: "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgJ="), "'path.1' is not a SHA-256 hash in canonical base64"),
            (good.replacingOccurrences(of: "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=", with: "AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=="), "'path.1' is not a SHA-256 hash in canonical base64"),
            (good.replacingOccurrences(of: #""AgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgI=""#, with: "7"), "'path.1' is not a string"),
        ]
        for (text, reason) in cases {
            do {
                _ = try ProofDocument(reading: text)
                Issue.record("read without an error: \(text)")
            } catch {
                #expect(error.description.contains(reason), "\(text): \(error)")
            }
        }
    }
}
