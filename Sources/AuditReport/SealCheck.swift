import EventLog
import Foundation

/// What a user's report re-checked about the seal it shows (the latest seal covering the
/// user's last event), and, when one is given, about a signed checkpoint; each step says what
/// it checked and whether it held, so the page can show a failure plainly.
/// Cost: O(seals) hashes, one count of the events table up to the seal's position, and with a
/// checkpoint one read of the chain hashes of the checkpoint's first N events.
package struct SealCheck: Sendable, Hashable {
    /// How one step ended.
    package enum Status: String, Sendable, Hashable {
        case passed
        case failed
        case notChecked = "not-checked"
    }

    /// One thing checked.
    package struct Step: Sendable, Hashable {
        /// A short name for tests and styling (`hash`, `links`, `covers`, `count`, `signature`, `root`, `includes`).
        package var name: String
        /// Whether the step passed, failed or was not checked.
        package var status: Status
        /// What was checked and what was found, in one sentence.
        package var text: String
    }

    /// The steps in the order they ran.
    package var steps: [Step] = []

    /// True when no step failed.
    package var passed: Bool { !steps.contains { $0.status == .failed } }

    /// The checkpoint and key to check with the seal (from outside the store).
    package struct Outside: Sendable {
        /// A checkpoint as `evtool seal --key --checkpoint-out` wrote it.
        package var checkpoint: Checkpoint
        /// Its file's name, as the page names it.
        package var name: String
        /// The public key to check its signature with (nil: the signature is not checked).
        package var publicKey: Ed25519Key?

        /// Makes the outside checkpoint (and key) to check.
        package init(checkpoint: Checkpoint, name: String, publicKey: Ed25519Key?) {
            self.checkpoint = checkpoint
            self.name = name
            self.publicKey = publicKey
        }
    }

    /// Re-checks `seal` (one of `seals`, oldest first) against its own fields, the seals before
    /// it and the log, and the checkpoint when given.
    /// - Parameters:
    ///   - lastPosition: the user's last event shown on the page.
    ///   - headPosition: the store's head when the page was made.
    static func run(seal: Seal, seals: [Seal], lastPosition: Int64, headPosition: Int64, store: any AuditableEventStore,
                    outside: Outside?) throws -> SealCheck {
        var check = SealCheck()
        func add(_ name: String, _ passed: Bool, _ text: String) { check.steps.append(Step(name: name, status: passed ? .passed : .failed, text: text)) }

        let recomputed = seal.recomputedHash
        add("hash", recomputed == seal.hash, recomputed == seal.hash
            ? "seal \(seal.number)'s hash is the SHA-256 of its fields (position, event and stream counts, heads digest, time and the previous seal's hash), recomputed now"
            : "seal \(seal.number)'s stored hash \(seal.hash) is not the hash of its fields (\(recomputed)): the seal was altered")

        let zeros = String(repeating: "0", count: 64)
        var broken: String?
        var previous: Seal?
        for candidate in seals.prefix(while: { $0.number <= seal.number }) {
            if candidate.number != (previous?.number ?? 0) + 1 {
                broken = "seal \(candidate.number) follows seal \(previous?.number ?? 0): a seal is missing"
            } else if candidate.previousHash != (previous?.hash ?? zeros) {
                broken = "seal \(candidate.number) does not name the hash of seal \(previous?.number ?? 0) before it"
            } else if candidate.recomputedHash != candidate.hash {
                broken = "seal \(candidate.number)'s hash is not the hash of its fields"
            }
            if broken != nil { break }
            previous = candidate
        }
        add("links", broken == nil, broken.map { "the seals up to \(seal.number) do not link up: \($0)" }
            ?? "seals 1–\(seal.number) link up: each names the hash of the seal before it, and each hash recomputes")

        let covers = seal.position >= lastPosition && seal.position <= headPosition
        add("covers", covers, covers
            ? "it seals the log up to position \(seal.position), at or after the user's last event shown (position \(lastPosition))"
            : "it claims position \(seal.position), but the user's last event is at \(lastPosition) and the log's head at \(headPosition)")

        guard let outside else {
            // Counting the log up to the seal reads the whole events table (2.2 s for 1,000,000
            // events on SQLite), too slow for every page; with a checkpoint the log is read anyway.
            check.steps.append(Step(name: "count", status: .notChecked,
                                    text: "the log's event count up to position \(seal.position) against the seal's \(seal.events) (it reads the whole log: given with --checkpoint, or by evtool verify)"))
            return check
        }
        let census = try store.eventRowCensus(through: seal.position)
        add("count", census.rows == seal.events, census.rows == seal.events
            ? "the log holds \(seal.events.counted("event")) at positions up to \(seal.position), as the seal recorded"
            : "the seal recorded \(seal.events.counted("event")) up to position \(seal.position), the log holds \(census.rows) there: events were removed or added below the seal")

        do {
            let checkpoint = outside.checkpoint
            let described = "checkpoint ‘\(outside.name)’ (\(checkpoint.size.counted("event")), \(checkpoint.time))"
            if let key = outside.publicKey {
                do {
                    try checkpoint.verifySignature(key)
                    add("signature", true, "\(described) is signed by key \(Checkpoint.keyID(of: key)), the public key given")
                } catch {
                    add("signature", false, "\(described): \(error)")
                }
            } else {
                check.steps.append(Step(name: "signature", status: .notChecked, text: "\(described): its signature was not checked (no public key given)"))
            }
            do {
                let root = try LogTree.streamedRoot(of: store, size: checkpoint.size)
                add("root", root == checkpoint.root, root == checkpoint.root
                    ? "the log's first \(checkpoint.size) events have the checkpoint's Merkle root, recomputed now from their chain hashes"
                    : "the log's first \(checkpoint.size) events do not have the checkpoint's Merkle root: an event there was modified, removed, inserted or reordered, or this store is a fork")
            } catch let error as MerkleProofError {
                add("root", false, "the log's first \(checkpoint.size) events cannot be checked against the checkpoint: \(error)")
            }
            let before = try store.eventRowCensus(through: lastPosition).rows
            add("includes", UInt64(max(0, before)) <= checkpoint.size, UInt64(max(0, before)) <= checkpoint.size
                ? "the checkpoint's \(checkpoint.size) events include the user's last event shown (event \(before) of the log)"
                : "the checkpoint covers \(checkpoint.size.counted("event")), the user's last event shown is event \(before) of the log: it is not covered")
            if checkpoint.time == seal.sealedAt, checkpoint.size == UInt64(seal.events) {
                check.steps.append(Step(name: "same", status: .passed, text: "the checkpoint was made with seal \(seal.number) (the same time and event count)"))
            }
        }
        return check
    }
}
