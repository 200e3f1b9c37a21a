import EventLog
import Foundation
import Projections
import StoreSQLite
import TestSupport
import Testing

/// What the fault suite checks a log for after a kill.
enum LogChecks {
    /// Every event of the log in position order.
    static func events(in store: any EventStore) throws -> [RecordedEvent] {
        var all: [RecordedEvent] = []
        try store.forEachBatch { all += $0 }
        return all
    }

    /// The broken rules of a log, as sentences (empty when it is sound): positions strictly
    /// increase, each stream's versions are 1, 2, 3 … with no gap, no id appears twice, and
    /// every batch the fault driver marked in its payloads is there whole or not at all.
    static func problems(in events: [RecordedEvent]) -> [String] {
        var problems: [String] = []
        var lastPosition: Int64 = 0
        var versions: [String: Int64] = [:]
        var ids = Set<UUID>()
        var batches: [String: (size: Int, seen: Int)] = [:]
        for event in events {
            if event.position <= lastPosition { problems.append("position \(event.position) follows \(lastPosition)") }
            lastPosition = event.position
            let expected = versions[event.streamID, default: 0] + 1
            if event.version != expected { problems.append("stream \(event.streamID): version \(event.version) where \(expected) was due") }
            versions[event.streamID] = event.version
            if !ids.insert(event.id).inserted { problems.append("event id \(event.id) appears twice") }
            if event.type == "FaultProbe" {
                // A probe whose payload cannot be read would drop out of the whole-batch check.
                guard let probe = try? JSONSerialization.jsonObject(with: event.data) as? [String: Any],
                      let batch = probe["batch"] as? String, let size = probe["size"] as? Int else {
                    problems.append("the probe at position \(event.position) has an unreadable payload: \(String(decoding: event.data, as: UTF8.self))")
                    continue
                }
                batches[batch, default: (size, 0)].seen += 1
            }
        }
        for (batch, count) in batches where count.seen != count.size {
            problems.append("batch \(batch) is partial: \(count.seen) of its \(count.size) events are visible")
        }
        return problems
    }

    /// The views whose stored documents differ from a rebuild from scratch (the pure fold of the whole log).
    static func viewsDifferingFromRebuild(_ store: any EventStore & ProjectionStore) throws -> [String] {
        var viewEvents: [ViewEvent] = []
        try store.forEachBatch { batch in viewEvents += batch.compactMap(ViewEvent.decode) }
        var differing: [String] = []
        for projection in Views.all where try storedView(projection.name, in: store) != folded(projection, viewEvents) {
            differing.append(projection.name)
        }
        return differing
    }

    private static func folded<P: Projection>(_ projection: P, _ events: [ViewEvent]) -> [String: Data] {
        projection.fold(events).mapValues(\.jsonData)
    }

    /// Every document of a view's active generation, by key, as stored.
    static func storedView(_ name: String, in store: any ProjectionStore) throws -> [String: Data] {
        try StoredViews.documents(of: name, in: store)
    }

    /// A SHA-256 over everything a reader can see in the store: every event with all its
    /// fields, and each view's status and active documents. Equal digests: the store is unchanged.
    static func digest(of store: any EventStore & ProjectionStore) throws -> String {
        let hasher = SHA256Hasher()
        try store.forEachBatch { batch in
            for event in batch {
                hasher.update(event.position)
                hasher.updateField(event.streamID)
                hasher.update(event.version)
                hasher.updateField(event.id.lowercaseString)
                hasher.updateField(event.type)
                hasher.updateField(Timestamp.format(event.recordedAt))
                hasher.updateField(event.data)
                hasher.updateField(event.metadata)
            }
        }
        for status in try store.projectionStatuses().sorted(by: { ($0.name, $0.generation) < ($1.name, $1.generation) }) {
            hasher.updateField("\(status)")
            for (key, document) in try storedView(status.name, in: store).sorted(by: { $0.key < $1.key }) {
                hasher.updateField(key)
                hasher.updateField(document)
            }
        }
        return hasher.finalize().hexString
    }

    /// The digest of the SQLite store at `path`, or a note that there is no file.
    static func digest(ofFileAt path: String) throws -> String {
        guard FileManager.default.fileExists(atPath: path) else { return "no file" }
        var options = SQLiteEventStore.Options()
        options.createIfMissing = false
        return try digest(of: SQLiteEventStore(path: path, options: options))
    }

    /// Runs `evtool verify` on a store: its hash chains and seals must check out (an empty
    /// store, exit 67, has nothing to verify). Records an issue naming `context` otherwise.
    static func expectVerifies(_ store: String, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Processes.run(Binaries.evtool, ["verify", "--store", store])
        #expect(result.status == 0 && result.output.hasPrefix("OK: ") || result.status == 67,
                "\(context): evtool verify: \(result)", sourceLocation: sourceLocation)
    }

    /// `PRAGMA integrity_check` through the sqlite3 shell: "ok" for a sound file.
    static func integrity(ofFileAt path: String) throws -> String {
        try Processes.run(Processes.sqlite3, [path, "PRAGMA integrity_check"]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
