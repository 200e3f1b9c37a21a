import EventLog
@testable import evtool_bench
import Testing

@Suite("Command benchmark")
struct CommandBenchmarkTests {
    @Test("a small run seeds the streams, handles the commands and reports a rate")
    func smallRun() throws {
        let store = InMemoryEventStore()
        let result = try CommandBenchmark.run(store: store, users: 3, streamLength: 25, commands: 30)
        #expect(result.commands == 30)
        #expect(result.commandsPerSecond > 0)
        #expect(result.firstCommandSeconds > 0)
        // 3 × 25 seeded, 3 first commands, 30 timed commands of which searches and favorites
        // always record and unfavorites record when the favorite exists: all of them here.
        #expect(try store.headPosition() == 3 * 25 + 3 + 30)
    }
}
