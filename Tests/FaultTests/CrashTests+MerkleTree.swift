import EventLog
import Foundation
import TestSupport
import Testing

extension CrashTests {
    @Test("seal --key killed at random moments, while it verifies, extends the kept Merkle tree or records: the tree then verifies and proofs check", arguments: StoreKind.underTest)
    func sealAndTreeExtension(kind: StoreKind) throws {
        let fixture = try SourceLog.make()
        defer { fixture.directory.remove() }
        let keys = fixture.directory.path + "/keys"
        let made = try Processes.run(Binaries.evtool, ["keys", "create", "--out", keys])
        try #require(made.status == 0, "\(made)")
        let key = keys + "/checkpoint-key.pem", publicKey = keys + "/checkpoint-key.pub.pem"
        func imported(_ name: String) throws -> FaultStore {
            let target = try FaultStore.make(kind, name: name, in: fixture.directory.path)
            let result = try Processes.run(Binaries.evtool, ["import", fixture.exportFile, "--store", target.cli])
            try #require(result.status == 0, "\(result)")
            return target
        }
        // One uninterrupted seal of a freshly imported log (verify, the whole tree, the record), to time it.
        let timing = try imported("seal-timing")
        defer { timing.remove() }
        let started = ContinuousClock.now
        let full = try Processes.run(Binaries.evtool, ["seal", "--key", key, "--store", timing.cli])
        try #require(full.status == 0, "\(full)")
        var plan = Kill.Plan(duration: (ContinuousClock.now - started) / .seconds(1), seed: FaultSettings.seed &+ 400)
        var kills = 0
        for iteration in 0..<FaultSettings.iterations {
            var landed = false
            for attempt in 0..<Kill.Plan.attempts where !landed {
                let target = try imported("seal-\(iteration)-\(attempt)")
                defer { target.remove() }
                let delay = plan.next()
                let outcome = try Kill.run(Binaries.evtool, ["seal", "--key", key, "--store", target.cli], after: delay)
                let context = "iteration \(iteration), attempt \(attempt), killed after \(String(format: "%.3f", delay)) s"
                if outcome.landed { landed = true; kills += 1 } else { plan.ranFor(outcome.elapsed) }
                #expect(try target.integrity() == "ok", "\(context)")
                // What the killed run left of the tree is sound, and verify (which extends it) passes.
                let store = try target.open()
                let kept = try #require(store as? any MerkleTreeStore)
                #expect(throws: Never.self, "\(context)") { try KeptTreeCheck.verify(kept) }
                try LogChecks.expectVerifies(target.cli, context)
                #expect(try kept.merkleTreeState().size == UInt64(fixture.events.count), "\(context)")
                // A seal now, and a proof against its checkpoint, checked offline.
                let checkpoint = fixture.directory.path + "/cp-\(iteration)-\(attempt).txt"
                let sealed = try Processes.run(Binaries.evtool, ["seal", "--key", key, "--checkpoint-out", checkpoint, "--store", target.cli])
                #expect(sealed.status == 0, "\(context): \(sealed)")
                let id = fixture.events[fixture.events.count / 2].id.lowercaseString
                let proof = try Processes.run(Binaries.evtool, ["prove", "--event", id, "--checkpoint", checkpoint, "--store", target.cli])
                #expect(proof.status == 0, "\(context): \(proof)")
                let proofFile = fixture.directory.path + "/proof-\(iteration)-\(attempt).txt"
                try proof.output.write(toFile: proofFile, atomically: true, encoding: .utf8)
                let checked = try Processes.run(Binaries.evtool, ["check-proof", proofFile, "--checkpoint", checkpoint, "--public-key", publicKey])
                #expect(checked.status == 0, "\(context): \(checked)")
                let verified = try Processes.run(Binaries.evtool, ["verify", "--checkpoint", checkpoint, "--public-key", publicKey, "--store", target.cli])
                #expect(verified.status == 0 && verified.output.contains("recorded in the store as checkpoint"), "\(context): \(verified)")
            }
            #expect(landed, "iteration \(iteration): \(plan)")
        }
        FaultSettings.report("seal --key on \(kind.testDescription): \(kills) kills survived of \(FaultSettings.iterations) runs, \(fixture.events.count)-event log")
    }
}
