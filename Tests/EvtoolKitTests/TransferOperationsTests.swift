import Audit
import EventLog
import Foundation
import StoreLocations
import TestSupport
import Testing
import Transfer

/// export, import and migrate called as library API, on SQLite and PostgreSQL.
@Suite("EvtoolKit: export, import and migrate in one call each")
struct TransferOperationsTests {
    static func exported(_ store: any EventStore, _ format: LogRecord.Format) throws -> String {
        var text = ""
        let count = try LogExport.write(store, format: format) { text += $0 + "\n" }
        #expect(count == text.split(separator: "\n").count)
        return text
    }

    @Test("export → import round trip: the same events, ids, versions and hashes; importing again adds nothing",
          arguments: ["sqlite", "postgres"], [LogRecord.Format.jsonl, .cloudevents])
    func roundTrip(_ backend: String, _ format: LogRecord.Format) throws {
        let source = try KitStore.make("sqlite"); defer { source.cleanup() }
        let from = try source.open()
        try source.append("ada", 3, to: from)
        try source.append("bob", 2, type: "Other", to: from)
        try source.append("ada", 1, to: from)
        let text = try Self.exported(from, format)
        #expect(try LogExport.write(from, format: format, from: 2, to: 4) { _ in } == 2)

        let target = try KitStore.make(backend); defer { target.cleanup() }
        let into = try target.open()
        var reader = lines(text)
        let outcome = try EventImport(store: into, batchSize: 4).run(&reader)
        #expect(outcome == EventImport.Outcome(format: format == .jsonl ? .jsonl : .cloudevents, appended: 6, skipped: 0))
        #expect(try LogDigest.of(into) == LogDigest.of(from))
        #expect(try into.readAll(after: 0, limit: 10).map(\.hash) == from.readAll(after: 0, limit: 10).map(\.hash))
        var again = lines(text)
        #expect(try EventImport(store: into).run(&again).skipped == 6)
        #expect(try into.headPosition() == 6)
        #expect(try LogAudit.verify(try LogAudit.open(target.location), location: target.location).report.events == 6)
    }

    @Test("import: a bad line stops the import with its number; the batches before it stay, nothing of its own", arguments: ["sqlite", "postgres"])
    func badLine(_ backend: String) throws {
        let source = try KitStore.make("sqlite"); defer { source.cleanup() }
        let from = try source.open()
        try source.append("ada", 5, to: from)
        var text = try Self.exported(from, .jsonl).split(separator: "\n").map(String.init)
        text[3] = #"{"position":4,"stream":"ada","version":4}"#
        let target = try KitStore.make(backend); defer { target.cleanup() }
        let into = try target.open()
        var reader = lines(text.joined(separator: "\n"))
        let message = operationError("invalid") { _ = try EventImport(store: into, batchSize: 2).run(&reader) }
        // Batches of 2: lines 1–2 were committed; line 3, of the refused line's batch, is not.
        #expect(message == "line 4: 'id' is missing (nothing from line 3 on was imported; 2 events were before it)", "\(message)")
        #expect(try into.headPosition() == 2)
    }

    @Test("import: progress in bytes after each batch, and a stop request ends it after a commit; rerunning resumes")
    func importProgressAndStop() throws {
        let source = try KitStore.make("sqlite"); defer { source.cleanup() }
        let from = try source.open()
        try source.append("ada", 10, to: from)
        let text = try Self.exported(from, .jsonl)
        let target = try KitStore.make("sqlite"); defer { target.cleanup() }
        let into = try target.open()
        var steps: [ProgressStep] = []
        var reader = lines(text)
        let message = operationError("interrupted") {
            _ = try EventImport(store: into, batchSize: 4).run(&reader, totalBytes: Int64(text.utf8.count), progress: { steps.append($0) }, shouldStop: { true })
        }
        #expect(message == "interrupted after importing 4 events (through line 4); run the same import again to resume")
        #expect(try into.headPosition() == 4)
        #expect(steps.first == .started(label: "import", total: Int64(text.utf8.count), unit: "bytes") && steps.last == .finished, "\(steps)")
        #expect(steps.contains { if case .advanced(let done) = $0 { return done > 0 && done < Int64(text.utf8.count) }; return false }, "\(steps)")
        steps = []
        var rest = lines(text)
        let outcome = try EventImport(store: into, batchSize: 4).run(&rest, totalBytes: Int64(text.utf8.count), progress: { steps.append($0) })
        #expect(outcome.appended == 6 && outcome.skipped == 4)
        #expect(steps.suffix(2) == [.completed(Int64(text.utf8.count)), .finished], "\(steps)")
        #expect(try LogDigest.of(into) == LogDigest.of(from))
    }

    @Test("migrate SQLite → PostgreSQL: stopped after a batch, resumed by the same call, verified, views rebuilt")
    func migrateWithResume() throws {
        let source = try KitStore.make("sqlite"); defer { source.cleanup() }
        let from = try source.open()
        try source.append("ada", 12, to: from)
        try source.append("bob", 13, to: from)
        let target = try KitStore.make("postgres"); defer { target.cleanup() }
        var stages: [Migration.Stage] = []
        let message = operationError("interrupted") {
            _ = try Migration.run(from: source.location, to: target.location, batchSize: 10, stage: { stages.append($0) }, shouldStop: { true })
        }
        #expect(message == "interrupted after copying through source position 10; run the same migrate again to resume")
        #expect(stages.isEmpty)
        #expect(try target.open().headPosition() == 10)

        var steps: [ProgressStep] = []
        let outcome = try Migration.run(from: source.location, to: target.location, batchSize: 10, stage: { stages.append($0) }, progress: { steps.append($0) })
        #expect(stages == [.resuming(after: 10), .verifying, .rebuildingViews])
        #expect(outcome.copied == 15 && outcome.digest.count == 25)
        #expect(steps.first == .started(label: "migrate", total: 25, unit: "events") && steps.suffix(2) == [.completed(25), .finished], "\(steps)")
        let into = try target.location.openForViews()
        #expect(try LogDigest.of(into) == LogDigest.of(from))
        let active = try into.projectionStatuses().filter(\.isActive)
        #expect(!active.isEmpty && active.allSatisfy { $0.position == 25 }, "\(active)")
        #expect(try LogAudit.verify(try LogAudit.open(target.location), location: target.location).report.events == 25)

        _ = operationError("invalid") { _ = try Migration.run(from: source.location, to: source.location) }
        // A target that is not a copy of the source is refused, and nothing is copied.
        let other = try KitStore.make("sqlite"); defer { other.cleanup() }
        try other.append("cyd", 1, to: try other.open())
        #expect(throws: MigrationError.self) { _ = try Migration.run(from: source.location, to: other.location) }
        #expect(try other.open().headPosition() == 1)
    }
}
