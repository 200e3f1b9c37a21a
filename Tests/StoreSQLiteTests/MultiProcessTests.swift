import EventLog
import Foundation
import StoreSQLite
import TestSupport
import Testing

/// Several OS processes writing one SQLite file through the real `evtool` binary.
@Suite("SQLite: several processes on one file")
struct MultiProcessTests {
    @Test("processes racing on one expected version: exactly one wins, the rest get a conflict")
    func racingProcesses() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/shared.sqlite"
        _ = try SQLiteEventStore(path: path)
        for round in 0..<8 {
            let stream = "race-\(round)"
            let running = try (0..<4).map { writer in
                try Processes.start(Processes.evtool, [
                    "append", "--store", "sqlite:\(path)", "--stream", stream, "--type", "Noted",
                    "--data", #"{"writer":\#(writer)}"#, "--expected-version", "no-stream",
                ])
            }
            let results = try running.map { try $0.finish() }
            let winners = results.filter { $0.status == 0 }
            let conflicts = results.filter { $0.status == 75 }
            #expect(winners.count == 1, "round \(round): \(results)")
            #expect(conflicts.count == 3, "round \(round): \(results)")
            for conflict in conflicts {
                #expect(conflict.errors == "Error: stream '\(stream)' is at version 1, but the append expected no stream\n")
                #expect(conflict.output.isEmpty)
            }
            #expect(winners.first?.output.hasPrefix("appended Noted to \(stream): version 1, position ") == true)
        }
        let store = try SQLiteEventStore(path: path)
        let all = try store.readAll(after: 0, limit: 1_000)
        #expect(all.count == 8)
        #expect(all.map(\.version) == Array(repeating: 1, count: 8))
        #expect(all.map(\.position) == Array(1...8))
    }

    @Test("processes appending with exact versions in a loop: no gap, no duplicate, nothing lost")
    func retryingProcesses() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/shared.sqlite"
        _ = try SQLiteEventStore(path: path)
        let writers = 3, appendsEach = 12
        // Each writer is a shell loop: read nothing, try the next version, retry on exit 75.
        let script = """
            i=0; v=0
            while [ $i -lt \(appendsEach) ]; do
              out=$("$EVTOOL" append --store "sqlite:$DB" --stream shared --type Noted --data "{\\"writer\\":$W,\\"i\\":$i}" --expected-version $v --json 2>/dev/null)
              code=$?
              if [ $code -eq 0 ]; then i=$((i+1)); v=$(echo "$out" | sed 's/.*"version":\\([0-9]*\\).*/\\1/');
              elif [ $code -eq 75 ]; then v=$((v+1));
              else echo "unexpected exit $code" >&2; exit 1; fi
            done
            """
        let running = try (0..<writers).map { writer in
            try Processes.start("/bin/sh", ["-c", "EVTOOL='\(Processes.evtool)' DB='\(path)' W=\(writer); " + script])
        }
        for result in try running.map({ try $0.finish() }) {
            #expect(result.status == 0, "\(result.errors)")
        }
        let store = try SQLiteEventStore(path: path)
        let events = try store.read(stream: "shared")
        #expect(events.map(\.version) == Array(1...Int64(writers * appendsEach)))
        let payloads = Set(events.map { String(decoding: $0.data, as: UTF8.self) })
        #expect(payloads.count == writers * appendsEach)
        for writer in 0..<writers {
            for index in 0..<appendsEach {
                #expect(payloads.contains(#"{"writer":\#(writer),"i":\#(index)}"#))
            }
        }
    }
}
