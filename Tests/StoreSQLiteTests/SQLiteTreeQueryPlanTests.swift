import EventLog
import Foundation
@testable import StoreSQLite
import TestSupport
import Testing

/// The kept tree's look-ups on SQLite take the b-trees they are meant to (O(log n)), whatever
/// SQLite's planner would pick without statistics.
@Suite("SQLite: the kept tree's look-ups use their indexes")
struct SQLiteTreeQueryPlanTests {
    @Test("an event's leaf is found through the index on last_position, not by sorting every level-0 tile, and is right at every position")
    func leafTileThroughIndex() throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/events.sqlite"
        let store = try SQLiteEventStore(path: path)
        for index in 0..<40 {
            try store.append(ProposedEvent(type: "Searched", data: Data(#"{"n":\#(index)}"#.utf8)), to: "user-\(index % 3)", expectedVersion: .any)
        }
        _ = try LogTree.extendKept(store)
        let plan = try Processes.run(Processes.sqlite3, [path, "EXPLAIN QUERY PLAN " + SQLiteEventStore.leafTileSQL.replacingOccurrences(of: "?1", with: "5")])
        try #require(plan.status == 0, "\(plan)")
        #expect(plan.output.contains("USING INDEX merkle_tiles_last_position"), "\(plan.output)")
        #expect(!plan.output.contains("TEMP B-TREE") && !plan.output.contains("SCAN"), "\(plan.output)")
        let positions = try store.readAll(after: 0, limit: 100).map(\.position)
        #expect(positions.count == 40)
        for (leaf, position) in positions.enumerated() {
            #expect(try store.merkleLeafIndex(position: position) == UInt64(leaf), "position \(position)")
        }
        #expect(try store.merkleLeafIndex(position: positions[39] + 1) == nil)
    }
}
