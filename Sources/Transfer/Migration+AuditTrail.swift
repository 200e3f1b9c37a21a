import EventLog
import Foundation

extension Migration {
    /// What a migration did with the source's seals and recorded checkpoints, which are not
    /// events and so are not in the copied log.
    public struct AuditTrail: Sendable, Equatable {
        /// The source's seals the target holds after the migration (carried now or before).
        public var seals: Int
        /// The source's recorded checkpoints the target holds after the migration.
        public var checkpoints: Int
        /// The source's seals left behind.
        public var sealsLeft: Int
        /// The source's recorded checkpoints left behind.
        public var checkpointsLeft: Int
        /// Why some were left behind; nil when everything was carried.
        public var reason: String?

        /// A record of what was carried and left.
        public init(seals: Int, checkpoints: Int, sealsLeft: Int = 0, checkpointsLeft: Int = 0, reason: String? = nil) {
            self.seals = seals
            self.checkpoints = checkpoints
            self.sealsLeft = sealsLeft
            self.checkpointsLeft = checkpointsLeft
            self.reason = reason
        }
    }

    /// Carries the source's seals and recorded checkpoints to a target that holds a complete
    /// copy of its log (called after ``verify(source:target:)``), as they are: signed by the
    /// source's keys, their hashes and notes unchanged.
    ///
    /// A seal covers the log up to a position, so it is carried only when the event at that
    /// position in the source is at the same position in the target (then both logs hold the
    /// same events up to it: same order, same hashes, same heads); a source whose positions
    /// have gaps (positions PostgreSQL burned) copies to other positions, and its seals from
    /// the first that would not verify on are left behind, with the checkpoints made with
    /// them. A checkpoint states a tree size over the events in order, which the copy keeps.
    /// Seals or checkpoints the target already holds must be the source's first ones (a rerun);
    /// a target with others of its own gets none.
    public static func carryAuditTrail(from source: any EventStore, to target: any EventStore) throws -> AuditTrail {
        let sourceSeals = try (source as? any AuditableEventStore)?.seals() ?? []
        let sourceCheckpoints = try (source as? any CheckpointRecording)?.recordedCheckpoints() ?? []
        func leftBehind(_ reason: String) -> AuditTrail {
            AuditTrail(seals: 0, checkpoints: 0, sealsLeft: sourceSeals.count, checkpointsLeft: sourceCheckpoints.count, reason: reason)
        }
        guard !sourceSeals.isEmpty || !sourceCheckpoints.isEmpty else { return AuditTrail(seals: 0, checkpoints: 0) }
        guard let targetAudit = target as? any AuditableEventStore, let targetRecording = target as? any CheckpointRecording else {
            return leftBehind("the target keeps no seals")
        }
        let targetSeals = try targetAudit.seals()
        guard targetSeals.count <= sourceSeals.count, zip(targetSeals, sourceSeals).allSatisfy({ $0 == $1 }) else {
            return leftBehind("the target holds seals of its own")
        }
        let targetCheckpoints = try targetRecording.recordedCheckpoints()
        guard targetCheckpoints.count <= sourceCheckpoints.count,
              zip(targetCheckpoints, sourceCheckpoints).allSatisfy({ $0.seal == $1.seal && $0.note == $1.note }) else {
            return leftBehind("the target holds checkpoints of its own")
        }

        // The seals whose position holds the same event in both logs, in order.
        var carriable = targetSeals.count
        var reason: String?
        for seal in sourceSeals.dropFirst(targetSeals.count) {
            let inSource = try source.readAll(after: seal.position - 1, limit: 1).first
            let inTarget = try target.readAll(after: seal.position - 1, limit: 1).first
            guard let inSource, inSource.position == seal.position, let inTarget, inTarget.position == seal.position, inTarget.id == inSource.id else {
                reason = "seal \(seal.number) covers the source up to position \(seal.position), and the copy holds the source's events at other positions (the source's log has gaps: positions left unused); seal the target to cover it"
                break
            }
            carriable += 1
        }
        for seal in sourceSeals[targetSeals.count..<carriable] { try targetAudit.addSeal(seal) }

        var checkpoints = targetCheckpoints.count
        for recorded in sourceCheckpoints.dropFirst(targetCheckpoints.count) {
            guard recorded.seal <= Int64(carriable) else { break }
            let checkpoint: Checkpoint
            do {
                checkpoint = try Checkpoint(text: recorded.note)
            } catch {
                reason = reason ?? "recorded checkpoint \(recorded.number) of the source does not read as a checkpoint: \(error)"
                break
            }
            guard checkpoint.text == recorded.note else {
                reason = reason ?? "recorded checkpoint \(recorded.number) of the source would not be recorded byte for byte"
                break
            }
            _ = try targetRecording.recordCheckpoint(seal: recorded.seal, checkpoint: checkpoint)
            checkpoints += 1
        }
        return AuditTrail(seals: carriable, checkpoints: checkpoints, sealsLeft: sourceSeals.count - carriable,
                          checkpointsLeft: sourceCheckpoints.count - checkpoints, reason: reason)
    }
}
