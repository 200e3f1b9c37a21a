import Foundation
import TestSupport
import Testing

/// `evtool append --id`: a retry of an append that was recorded (its answer lost) answers as
/// the first did and appends nothing; the same id with other content, or in another stream,
/// is refused as before.
@Suite("append: a retry with the same id")
struct AppendRetryTests {
    @Test("the same id, stream and content: 'already recorded', exit 0, nothing appended; with --expected-version too; other content or stream: refused")
    func retry() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cli = CLI(store: "sqlite:\(directory.path)/s.sqlite", directory: directory.path)
        let id = "00000000-0000-4000-8000-000000000001"
        let first = try cli.run("append", "--stream", "s", "--type", "Note", "--data", #"{"n":1}"#, "--id", id, "--expected-version", "no-stream")
        #expect(first.status == 0 && first.output == "appended Note to s: version 1, position 1\n", "\(first)")
        for expected in ["no-stream", "any"] {
            let again = try cli.run("append", "--stream", "s", "--type", "Note", "--data", #"{"n":1}"#, "--id", id, "--expected-version", expected)
            #expect(again.status == 0 && again.output == "already recorded: Note with id \(id) is in s at version 1, position 1; nothing appended\n", "\(expected): \(again)")
        }
        let json = try cli.run("append", "--stream", "s", "--type", "Note", "--data", #"{"n":1}"#, "--id", id, "--json")
        #expect(json.status == 0 && json.output.contains(#""alreadyRecorded":true"#) && json.output.contains(#""position":1"#), "\(json)")
        let other = try cli.run("append", "--stream", "s", "--type", "Note", "--data", #"{"n":2}"#, "--id", id)
        #expect(other.status == 65 && other.errors.contains("an event with id \(id) is already in the log"), "\(other)")
        let elsewhere = try cli.run("append", "--stream", "t", "--type", "Note", "--data", #"{"n":1}"#, "--id", id)
        #expect(elsewhere.status == 65, "\(elsewhere)")
        let stats = try cli.run("stats", "--json")
        #expect(stats.output.contains(#""events":1"#), "one event in all: \(stats)")
        // A stale expected version without the id is still a conflict.
        let stale = try cli.run("append", "--stream", "s", "--type", "Note", "--data", "{}", "--expected-version", "0")
        #expect(stale.status == 75, "\(stale)")
    }
}
