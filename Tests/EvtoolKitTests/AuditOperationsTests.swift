import Audit
import EventLog
import Foundation
import StoreLocations
import TestSupport
import Testing
import Transfer

/// verify, seal and forget called as library API, on SQLite and PostgreSQL.
@Suite("EvtoolKit: verify, seal and forget in one call each")
struct AuditOperationsTests {
    @Test("verify: a clean log verifies with its counts; a modified payload is the first problem, named", arguments: ["sqlite", "postgres"])
    func verify(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        try kit.append("ada", 3, to: store)
        try kit.append("bob", 2, to: store)
        var steps: [ProgressStep] = []
        let verified = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location, progress: { steps.append($0) })
        #expect(verified.report.events == 5 && verified.report.streams == 2 && verified.consistency == nil)
        #expect(steps.first == .started(label: "verify", total: 5, unit: "events") && steps.last == .finished, "\(steps)")
        #expect(try LogAudit.verifyStream("bob", in: try LogAudit.open(kit.location), location: kit.location).events == 2)

        try kit.tamper(#"UPDATE events SET data = '{"n":99}' WHERE position = 4;"#)
        let message = operationError("invalid") { _ = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location) }
        #expect(message.hasPrefix("the log fails verification: ") && message.contains("position 4"), "\(message)")
        let streamMessage = operationError("invalid") { _ = try LogAudit.verifyStream("bob", in: try LogAudit.open(kit.location), location: kit.location) }
        #expect(try LogAudit.verifyStream("ada", in: try LogAudit.open(kit.location), location: kit.location).events == 3, "the other stream still verifies")
        #expect(streamMessage.hasPrefix("the log fails verification: "), "\(streamMessage)")
    }

    @Test("verify: an empty store or stream is nothing to verify, not OK", arguments: ["sqlite", "postgres"])
    func nothingToVerify(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        _ = try kit.open()
        let message = operationError("nothingToDo") { _ = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location) }
        #expect(message.contains("holds no events and no seals"), "\(message)")
        _ = operationError("nothingToDo") { _ = try LogAudit.verifyStream("nobody", in: try LogAudit.open(kit.location), location: kit.location) }
    }

    @Test("verify: a file that is not a store is told apart", arguments: ["sqlite"])
    func notAStore(_ backend: String) throws {
        let directory = try TemporaryDirectory(); defer { directory.remove() }
        let path = directory.path + "/notes.sqlite"
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(fileURLWithPath: path))
        let message = operationError("notAStore") { _ = try LogAudit.open(.sqlite(path: path)) }
        #expect(message.contains("is not an evtool store"), "\(message)")
    }

    @Test("seal: verifies, records a seal that later verifies, makes a checkpoint of the sealed events; a tampered log is not sealed", arguments: ["sqlite", "postgres"])
    func seal(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        _ = operationError("nothingToDo") { _ = try LogAudit.seal(try LogAudit.open(kit.location), location: kit.location) }
        try kit.append("ada", 4, to: store)
        let sealing = try LogAudit.seal(try LogAudit.open(kit.location), location: kit.location, makeCheckpoint: true)
        #expect(sealing.seal.number == 1 && sealing.seal.events == 4 && sealing.seal.position == 4)
        #expect(sealing.checkpoint?.size == 4 && sealing.checkpoint?.signatures.isEmpty == true)
        let key = try Ed25519Key.generate()
        try kit.append("bob", 1, to: store)
        let signed = try LogAudit.seal(try LogAudit.open(kit.location), location: kit.location, key: key)
        #expect(signed.seal.number == 2 && signed.checkpoint?.size == 5 && signed.checkpoint?.signatures.count == 1)
        let verified = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location)
        #expect(verified.report.seals == 2)
        if let checkpoint = sealing.checkpoint {
            let proved = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location,
                                             checkpoint: (checkpoint: checkpoint, path: "cp.txt", signature: "unsigned"))
            #expect(proved.consistency?.contains("consistency proof 4 → 5 checked") == true, "\(String(describing: proved.consistency))")
        }

        try kit.tamper(#"UPDATE events SET data = '{"n":0}' WHERE position = 2;"#)
        let message = operationError("invalid") { _ = try LogAudit.seal(try LogAudit.open(kit.location), location: kit.location) }
        #expect(message.hasPrefix("the log fails verification, so it was not sealed: "), "\(message)")
        let seals = try (try LogAudit.open(kit.location) as? any AuditableEventStore)?.seals() ?? []
        #expect(seals.count == 2, "no third seal over a tampered log")
    }

    @Test("forget: the user's payloads become tombstones, the erasure is recorded, the log still verifies", arguments: ["sqlite", "postgres"])
    func forget(_ backend: String) throws {
        let kit = try KitStore.make(backend); defer { kit.cleanup() }
        let store = try kit.open()
        try kit.append("ada", 2, to: store)
        try kit.append("bob", 1, to: store)
        _ = operationError("invalid") { _ = try LogAudit.forget(user: "ada", reason: "  ", by: "alice", in: kit.location) }
        #expect(try store.read(stream: "ada", from: 1, direction: .forwards, limit: 10).allSatisfy { !Erasure.isTombstone($0) })

        let forgotten = try LogAudit.forget(user: "ada", reason: "ticket 12", by: "alice", in: kit.location)
        #expect(forgotten.user == "ada" && forgotten.erasedEvents == 2 && forgotten.position == 5)   // the marker at 4
        #expect((forgotten.walEmptied != nil) == (backend == "sqlite"))
        let reopened = try kit.open()
        let ada = try reopened.read(stream: "ada", from: 1, direction: .forwards, limit: 10)
        #expect(ada.dropLast().allSatisfy(Erasure.isTombstone) && ada.count == 3 && ada.last.map(Erasure.isMarker) == true)
        #expect(try reopened.read(stream: "bob", from: 1, direction: .forwards, limit: 10).allSatisfy { !Erasure.isTombstone($0) })
        let verified = try LogAudit.verify(try LogAudit.open(kit.location), location: kit.location)
        #expect(verified.report.events == 5 && verified.report.erasedEvents == 2)
    }
}
