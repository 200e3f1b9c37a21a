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
//   fault-driver append … --seconds T --retry-for R
//       The same, for server faults (the server crashes and restarts under it): a batch that
//       fails because the store is unavailable, or whose outcome is unknown (the connection
//       dropped while it committed), is tried again with the same event ids, with backoff,
//       until it is acknowledged. A retry refused as a duplicate id, or as a version conflict
//       with the batch's ids found in its stream, means the earlier try committed: the batch
//       is acknowledged then. A version conflict otherwise (another driver got there first)
//       drops the batch unacknowledged. After T seconds, or at SIGINT, it finishes the batch in
//       hand and prints one JSON line: batches and events acknowledged, failed tries by kind, unknown
//       outcomes found committed and found absent, and conflicts. It fails (exit 2) when a
//       batch stays unacknowledged for R seconds.
//
//   fault-driver load --store STORE --seconds T --seed S [--users U] [--listings L]
//       Records simulated user actions through the command runner (as an app server would)
//       until T seconds pass, then prints one JSON line: commands recorded and unchanged, the
//       events the recorded ones appended, failures by message, and every latency in µs.
import Commands
import EventLog
import Foundation
import Simulation
import StorePostgres
import StoreSQLite
import Synchronization

signal(SIGPIPE, SIG_IGN)

/// Set by SIGINT: `append --seconds` stops after the batch in hand.
let stopRequested = Atomic<Bool>(false)

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
    let retries = options["retry-for"] != nil
    let clock = ContinuousClock()
    let deadline = options["seconds"].map { _ in clock.now + .seconds(integer("seconds", default: 5)) }
    var retrying = Retrying(patience: Double(integer("retry-for", default: 60)))
    if deadline != nil {
        signal(SIGINT) { _ in stopRequested.store(true, ordering: .relaxed) }
        // The test that started us may have had SIGINT blocked (a thread's mask is inherited
        // through fork and exec), as evtool's main.swift explains.
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGINT)
        sigprocmask(SIG_UNBLOCK, &unblocked, nil)
    }

    func batch(_ size: Int) -> [ProposedEvent] {
        let batchID = UUID().uuidString.lowercased()
        return (0..<size).map { index in
            ProposedEvent(type: "FaultProbe", data: Data(#"{"batch":"\#(batchID)","size":\#(size),"index":\#(index)}"#.utf8))
        }
    }

    while deadline.map({ clock.now < $0 }) ?? true, !stopRequested.load(ordering: .relaxed) {
        let roll = Int.random(in: 0..<100, using: &random)
        var parts: [StreamAppend] = []
        if roll < 50 {
            // One event, any version.
            parts = [StreamAppend(stream: streams.randomElement(using: &random)!, expectedVersion: .any, events: batch(1))]
        } else if roll < 75 {
            // A batch to one stream, at the version it has now.
            let stream = streams.randomElement(using: &random)!
            let version = retries ? try retrying.run { try store.version(of: stream) } : try store.version(of: stream)
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
        if retries {
            guard try retrying.append(parts, to: store) else { continue }
        } else {
            try store.append(parts)
        }
        let line = parts.flatMap { $0.events.map { $0.id.lowercaseString + "\n" } }.joined()
        let written = line.utf8CString.withUnsafeBufferPointer { write(acks, $0.baseAddress, line.utf8.count) }
        guard written == line.utf8.count else { fail("short write to the acks file") }
        retrying.batches += 1
        retrying.events += parts.reduce(0) { $0 + $1.events.count }
    }
    print(#"{"batches":\#(retrying.batches),"events":\#(retrying.events),"unavailable":\#(retrying.unavailable),"unknown":\#(retrying.unknown),"unknownCommitted":\#(retrying.unknownCommitted),"unknownAbsent":\#(retrying.unknownAbsent),"conflicts":\#(retrying.conflicts)}"#)
}

/// How the driver gets appends through server restarts (`append --retry-for R`), and what it met.
struct Retrying {
    var batches = 0, events = 0
    /// Failed tries because the store could not be reached.
    var unavailable = 0
    /// Tries whose outcome was unknown, and how the retry settled them.
    var unknown = 0, unknownCommitted = 0, unknownAbsent = 0
    /// Batches dropped because another writer moved the stream first.
    var conflicts = 0
    private var backoff = 0.01

    init(patience: Double) { self.patience = patience }

    /// How long a try may keep failing, in seconds, before the driver gives up.
    let patience: Double

    /// Runs `body` until it does not fail for want of the store (``patience`` at most).
    mutating func run<T>(_ body: () throws -> T) throws -> T {
        let started = Date()
        while true {
            do {
                let value = try body()
                backoff = 0.01
                return value
            } catch EventStoreError.unavailable(let reason) {
                unavailable += 1
                try pause(since: started, reason)
            }
        }
    }

    /// Appends `parts` (all or nothing) until acknowledged: true when they are in the log,
    /// false when a version conflict that is not our own earlier try dropped them.
    mutating func append(_ parts: [StreamAppend], to store: any MultiStreamAppending) throws -> Bool {
        let started = Date()
        var outcomeUnknown = false
        while true {
            do {
                try store.append(parts)
                if outcomeUnknown { unknownAbsent += 1 }
                backoff = 0.01
                return true
            } catch EventStoreError.unavailable(let reason) {
                unavailable += 1
                try pause(since: started, reason)
            } catch EventStoreError.outcomeUnknown(let reason) {
                unknown += 1
                outcomeUnknown = true
                try pause(since: started, reason)
            } catch EventStoreError.duplicateEventID(let id) where outcomeUnknown && parts.contains(where: { $0.events.contains { $0.id == id } }) {
                unknownCommitted += 1
                return true
            } catch EventStoreError.wrongExpectedVersion(let stream, let expected, _) {
                if outcomeUnknown, case .exactly(let version) = expected,
                   let part = parts.first(where: { $0.stream == stream }),
                   try run({ try store.read(stream: stream, from: version + 1, direction: .forwards, limit: part.events.count) }).map(\.id) == part.events.map(\.id) {
                    unknownCommitted += 1
                    return true
                }
                if outcomeUnknown { unknownAbsent += 1 }
                conflicts += 1
                return false
            }
        }
    }

    private mutating func pause(since started: Date, _ reason: String) throws {
        if Date().timeIntervalSince(started) > patience { fail("nothing got through for \(Int(patience)) s: \(reason)") }
        Thread.sleep(forTimeInterval: backoff)
        backoff = min(backoff * 2, 0.5)
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
