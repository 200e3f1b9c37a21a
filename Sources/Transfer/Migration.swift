import EventLog
import Foundation

/// What `migrate` does besides copying (which ``EventCopier`` does): where an interrupted copy
/// resumes, and the check that both logs hold the same events in the same order.
public enum Migration {
    /// Where to continue a migration: the source position of the target's last event, which
    /// must be the same event in both (every field compared).
    public static func resumePosition(source: any EventStore, target: any EventStore) throws -> Int64 {
        let targetHead = try target.headPosition()
        guard targetHead > 0, let last = try target.readAll(after: targetHead - 1, limit: 1).first else { return 0 }
        guard let match = try source.read(stream: last.streamID, from: last.version, direction: .forwards, limit: 1).first, match.id == last.id else {
            throw MigrationError.notACopy("the target already holds events that are not a copy of this source (its last event, \(last.id.lowercaseString), is not in the source); migrate into an empty store")
        }
        // Compared before everything up to it is skipped: the same event, not only the same id.
        let differences = EventCopier.Fields(match).differences(from: EventCopier.Fields(last), erasedDigests: nil)
        guard differences.isEmpty else {
            throw MigrationError.notACopy("source position \(match.position): event \(last.id.lowercaseString), the target's last event, differs from the source's in its \(EventCopier.Fields.list(differences)); the target is not a copy of this source; migrate into an empty store")
        }
        try checkPrefix(source: source, target: target)
        return match.position
    }

    /// Checks that the target's events are the source's first ones, in order (by id): a
    /// target that also holds events of its own, anywhere, is refused before anything is
    /// copied into it. Reads the target once (as the final ``verify(source:target:)`` does).
    static func checkPrefix(source: any EventStore, target: any EventStore) throws {
        var afterSource: Int64 = 0, afterTarget: Int64 = 0, count = 0
        var pending: [RecordedEvent] = []
        while true {
            let targets = try target.readAll(after: afterTarget, limit: 1_000)
            guard let lastTarget = targets.last else { return }
            afterTarget = lastTarget.position
            for event in targets {
                if pending.isEmpty {
                    pending = try source.readAll(after: afterSource, limit: 1_000)
                    afterSource = pending.last?.position ?? afterSource
                    pending.reverse()
                }
                count += 1
                guard let expected = pending.popLast() else {
                    throw MigrationError.notACopy("the target holds more events than this source (its event \(count), at position \(event.position), is beyond the source's last); migrate into an empty store")
                }
                guard expected.id == event.id else {
                    throw MigrationError.notACopy("the target already holds events that are not a copy of this source: its event \(count) (position \(event.position), \(event.id.lowercaseString)) is not the source's (\(expected.id.lowercaseString)); nothing was copied; migrate into an empty store")
                }
            }
        }
    }

    /// Reads both logs in order and compares them (``LogDigest``); returns the source's digest.
    /// - Throws: ``MigrationError/verificationFailed(_:)`` when they differ.
    public static func verify(source: any EventStore, target: any EventStore) throws -> LogDigest {
        let sourceDigest = try LogDigest.of(source)
        let targetDigest = try LogDigest.of(target)
        guard sourceDigest == targetDigest else {
            throw MigrationError.verificationFailed("verification failed: source has \(sourceDigest.count.counted("event")) (digest \(sourceDigest.hex.prefix(16))…), target \(targetDigest.count) (digest \(targetDigest.hex.prefix(16))…)")
        }
        return sourceDigest
    }
}
