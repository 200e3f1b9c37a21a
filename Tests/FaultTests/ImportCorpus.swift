import Foundation

/// Malformed import lines, generated from a good one: each names what is wrong with it.
enum ImportCorpus {
    static let id = "99999999-9999-4999-8999-999999999999"

    /// A record with some members replaced (a nil value removes the member) or added.
    static func record(_ changes: [String: String?]) -> Data {
        var members: [(String, String)] = [
            ("position", "3"), ("stream", #""bob""#), ("version", "1"), ("id", "\"\(id)\""), ("type", #""Note""#),
            ("recordedAt", #""2026-01-01T00:00:00.000000Z""#), ("data", #"{"keyword":"jazz"}"#), ("metadata", "{}"),
        ]
        let names = Set(members.map(\.0))
        members = members.compactMap { name, value in
            guard let change = changes[name] else { return (name, value) }
            return change.map { (name, $0) }
        }
        for (name, value) in changes.sorted(by: { $0.key < $1.key }) where !names.contains(name) {
            if let value { members.append((name, value)) }   // a member the good record does not have
        }
        return Data(("{" + members.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}").utf8)
    }

    static func malformedLines() -> [(String, Data)] {
        var cases: [(String, Data)] = []
        let good = record([:])
        // Truncated JSON: every proper prefix of an object is malformed.
        var random = SeededRandom(seed: FaultSettings.seed &+ 500)
        let cuts = FaultSettings.isHeavy ? Array(1..<good.count) : (0..<8).map { _ in Int.random(in: 1..<good.count, using: &random) }
        for cut in cuts { cases.append(("truncated at byte \(cut)", good.prefix(cut))) }
        // Not an object.
        for text in ["[]", #""text""#, "null", "42", "{}", "{,}", "{\"stream\"}", "\u{FEFF}" + String(decoding: good, as: UTF8.self)] {
            cases.append(("not an import record: \(text.prefix(20))", Data(text.utf8)))
        }
        // Wrong types and invalid values, member by member.
        let wrong: [String: [String]] = [
            "stream": ["1", "null", "{}", #""""#, #""a\u0001b""#, "\"\(String(repeating: "s", count: 600))\""],
            "version": [#""1""#, "1.5", "-1", "0", "1e3", "99999999999999999999", "null", "true"],
            "id": ["1", #""not-a-uuid""#, #""""#, "null"],
            "type": ["1", "null", #""""#, #""a\nb""#],
            "recordedAt": ["1", #""yesterday""#, #""2026-13-45T00:00:00Z""#, "null"],
            "data": [#"{"a":}"#, "[" + String(repeating: "[", count: 600) + String(repeating: "]", count: 601)],
        ]
        for (member, values) in wrong.sorted(by: { $0.key < $1.key }) {
            for value in values { cases.append(("'\(member)' is \(value.prefix(30))", record([member: value]))) }
        }
        // Missing members.
        for member in ["stream", "version", "id", "type", "recordedAt", "data", "metadata"] {
            cases.append(("'\(member)' missing", record([member: nil])))
        }
        // Invalid UTF-8 and raw control bytes.
        var invalid = record([:])
        invalid.replaceSubrange(invalid.range(of: Data("jazz".utf8))!, with: [0x6A, 0xFF, 0xFE, 0x7A])
        cases.append(("invalid UTF-8 in data", invalid))
        var badStream = record([:])
        badStream.replaceSubrange(badStream.range(of: Data("bob".utf8))!, with: [0x62, 0xC3, 0x28])
        cases.append(("invalid UTF-8 in stream", badStream))
        var nul = record([:])
        nul.replaceSubrange(nul.range(of: Data("jazz".utf8))!, with: [0x6A, 0x00, 0x7A])
        cases.append(("a raw NUL byte in a string", nul))
        // An id already in the log, for a new stream.
        cases.append(("an id already in the log", record(["id": #""01a22c3c-afdf-7b39-bf76-8f32d6761f37""#])))
        // The event already in the log (stream 'ada' version 1), given again with one field changed:
        // compared before it is skipped, so refused.
        let held: [String: String?] = ["stream": #""ada""#, "id": #""01a22c3c-afdf-7b39-bf76-8f32d6761f37""#]
        let changed: [(String, String)] = [
            ("data", #"{"keyword":"jaxx"}"#), ("metadata", #"{"x":1}"#), ("type", #""Noted""#),
            ("recordedAt", #""2026-01-01T00:00:00.000001Z""#), ("version", "2"),
            ("hash", "\"\(String(repeating: "ab", count: 32))\""),
        ]
        for (member, value) in changed {
            cases.append(("the event already in the log with a different \(member)", record(held.merging([member: value]) { $1 })))
        }
        // A different event at a version the store already holds.
        cases.append(("a different event at a held version", record(["stream": #""ada""#, "version": "2"])))
        // A version gap.
        cases.append(("a version gap", record(["version": "3"])))
        // CloudEvents of another spec version, and without a subject.
        cases.append(("CloudEvents 2.0", Data(#"{"specversion":"2.0","id":"\#(id)","type":"Note","subject":"bob","time":"2026-01-01T00:00:00Z","evtoolversion":1,"evtoolmetadata":"{}","data":{}}"#.utf8)))
        cases.append(("CloudEvents without a subject", Data(#"{"specversion":"1.0","id":"\#(id)","type":"Note","time":"2026-01-01T00:00:00Z","evtoolversion":1,"evtoolmetadata":"{}","data":{}}"#.utf8)))
        cases.append(("CloudEvents metadata that is not JSON", Data(#"{"specversion":"1.0","id":"\#(id)","type":"Note","subject":"bob","time":"2026-01-01T00:00:00Z","evtoolversion":1,"evtoolmetadata":"{oops","data":{}}"#.utf8)))
        return cases
    }
}
