// fault-driver: the processes the fault suite kills and loads the stores with.
//
//   STORE is sqlite:PATH or a postgres:// URL (with --schema NAME).
//
//   fault-driver append --store STORE --acks FILE --seed S [--streams N]
//       Appends forever (single events, one-stream batches, several-stream batches), each
//       batch marked in its payloads ({"batch":ID,"size":N,"index":I}); after each append
//       returns, writes the ids it acknowledged to FILE, one per line, with one write(2), so
//       a SIGKILL at any moment leaves FILE holding exactly what was acknowledged (the kernel
//       keeps what was written; the process needs no flush).
//
//   fault-driver load --store STORE --seconds T --seed S [--users U] [--listings L]
//       Records simulated user actions through the command runner (as an app server would)
//       until T seconds pass, then prints one JSON line: commands recorded and unchanged, the
//       events the recorded ones appended, failures by message, and every latency in µs.
import Commands
import EventLog
import Foundation
import StorePostgres
import StoreSQLite

signal(SIGPIPE, SIG_IGN)

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("fault-driver: \(message)\n".utf8))
    exit(2)
}

/// `--name value` pairs after the mode.
let options: [String: String] = {
    var options: [String: String] = [:]
    let arguments = Array(CommandLine.arguments.dropFirst(2))
    var index = 0
    while index + 1 < arguments.count {
        guard arguments[index].hasPrefix("--") else { fail("unexpected argument '\(arguments[index])'") }
        options[String(arguments[index].dropFirst(2))] = arguments[index + 1]
        index += 2
    }
    return options
}()
guard let mode = CommandLine.arguments.dropFirst().first else { fail("usage: fault-driver append|load --store STORE …") }

func option(_ name: String) -> String {
    guard let value = options[name] else { fail("missing --\(name)") }
    return value
}

func integer(_ name: String, default value: Int) -> Int {
    guard let text = options[name] else { return value }
    guard let number = Int(text) else { fail("--\(name) must be a whole number") }
    return number
}

/// Opens `postgres://…` (in the schema named by `--schema`, default `evtool`), `sqlite:PATH` or a bare path.
func openStore(_ text: String) throws -> any MultiStreamAppending {
    if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
        return try PostgresEventStore(url: text, schema: options["schema"] ?? "evtool")
    }
    let path = text.hasPrefix("sqlite:") ? String(text.dropFirst("sqlite:".count)) : text
    return try SQLiteEventStore(path: path)
}

func runAppends() throws {
    let store = try openStore(option("store"))
    let acks = open(option("acks"), O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard acks >= 0 else { fail("cannot open the acks file: errno \(errno)") }
    var random = SplitMix64(seed: UInt64(integer("seed", default: 1)))
    let streams = (0..<integer("streams", default: 8)).map { "fault-\($0)" }

    func batch(_ size: Int) -> [ProposedEvent] {
        let batchID = UUID().uuidString.lowercased()
        return (0..<size).map { index in
            ProposedEvent(type: "FaultProbe", data: Data(#"{"batch":"\#(batchID)","size":\#(size),"index":\#(index)}"#.utf8))
        }
    }

    while true {
        let roll = Int.random(in: 0..<100, using: &random)
        var parts: [StreamAppend] = []
        if roll < 50 {
            // One event, any version.
            parts = [StreamAppend(stream: streams.randomElement(using: &random)!, expectedVersion: .any, events: batch(1))]
        } else if roll < 75 {
            // A batch to one stream, at the version it has now.
            let stream = streams.randomElement(using: &random)!
            let version = try store.version(of: stream)
            parts = [StreamAppend(stream: stream, expectedVersion: .exactly(version), events: batch(Int.random(in: 2...20, using: &random)))]
        } else {
            // One batch over several streams, in one transaction.
            let events = batch(Int.random(in: 2...12, using: &random))
            var chosen = streams.shuffled(using: &random).prefix(Int.random(in: 2...3, using: &random)).makeIterator()
            var start = 0
            while start < events.count, let stream = chosen.next() {
                let end = min(events.count, start + max(1, events.count / 3))
                parts.append(StreamAppend(stream: stream, expectedVersion: .any, events: Array(events[start..<end])))
                start = end
            }
            if start < events.count { parts[parts.count - 1].events += events[start...] }
        }
        try store.append(parts)
        let line = parts.flatMap { $0.events.map { $0.id.lowercaseString + "\n" } }.joined()
        let written = line.utf8CString.withUnsafeBufferPointer { write(acks, $0.baseAddress, line.utf8.count) }
        guard written == line.utf8.count else { fail("short write to the acks file") }
    }
}

func runLoad() throws {
    let store = try openStore(option("store"))
    let seconds = Double(integer("seconds", default: 5))
    let seed = UInt64(integer("seed", default: 1))
    let runner = CommandRunner(store: store)
    var generator = ActivityGenerator(users: integer("users", default: 40), listings: integer("listings", default: 60), seed: seed)
    var recorded = 0, unchanged = 0, events = 0
    var failures: [String: Int] = [:]
    var latencies: [Int] = []
    let clock = ContinuousClock()
    let deadline = clock.now + .milliseconds(Int(seconds * 1_000))
    var count = 0
    while clock.now < deadline {
        let action = generator.next()
        let context = CommandContext(userID: action.userID, source: "fault-driver-\(seed)", occurredAt: Timestamp.now(),
                                     requestID: "load-\(seed)-\(count)")
        count += 1
        let started = clock.now
        do {
            let outcome = try runner.handle(action.command, context: context)
            if case let .recorded(ids, _, _) = outcome { recorded += 1; events += ids.count } else { unchanged += 1 }
        } catch {
            failures["\(error)", default: 0] += 1
        }
        let (whole, fraction) = (clock.now - started).components
        latencies.append(Int(whole) * 1_000_000 + Int(fraction / 1_000_000_000_000))
    }
    let failureJSON = failures.map { #"{"error":\#(quoted($0.key)),"count":\#($0.value)}"# }.joined(separator: ",")
    print(#"{"recorded":\#(recorded),"unchanged":\#(unchanged),"events":\#(events),"failures":[\#(failureJSON)],"latenciesMicroseconds":[\#(latencies.map(String.init).joined(separator: ","))]}"#)
}

func quoted(_ text: String) -> String {
    let data = try! JSONSerialization.data(withJSONObject: [text])
    return String(decoding: data.dropFirst().dropLast(), as: UTF8.self)
}

do {
    switch mode {
    case "append": try runAppends()
    case "load": try runLoad()
    default: fail("unknown mode '\(mode)'")
    }
} catch {
    fail("\(error)")
}
