import Audit
import EventLog
import Foundation
import Transfer

/// The whole log's verify verdict on the store overview: what `evtool verify` says of the
/// store, made by the same library call (``Audit/LogAudit/verify(_:named:checkpoint:archives:progress:)``):
/// every event's hash and chain link and every stream's versions, every seal, the kept Merkle
/// tree and every recorded checkpoint.
/// Cost: one more pass over the log (the one `verify` makes).
package struct LogVerdict: Sendable, Hashable {
    /// How verification ended.
    package enum Status: String, Sendable, Hashable {
        /// Everything held (`evtool verify` exits 0).
        case verified
        /// The first problem found (`evtool verify` exits 65).
        case failed
        /// A migrate stopped part way (`evtool verify` exits 68).
        case incompleteCopy = "incomplete-copy"
        /// No events and no seals: nothing to verify.
        case empty
    }

    /// How it ended.
    package var status: Status
    /// `evtool verify`'s line: its `OK: …` line, or the problem it names.
    package var text: String
    /// What was verified, when it held.
    package var report: VerificationReport?
    /// How many checkpoints the store recorded (each checked against the log when it held).
    package var recordedCheckpoints: Int

    /// Verifies `store` (named `name` in the messages) as `evtool verify` does, and words the result.
    /// - Throws: the store's errors, and what `verify` throws for something other than a verdict.
    package static func run(_ store: any EventStore, name: String) throws -> LogVerdict {
        let recorded = try (store as? any CheckpointRecording)?.recordedCheckpoints().count ?? 0
        do {
            let verified = try LogAudit.verify(store, named: name)
            return LogVerdict(status: .verified, text: LogAudit.summary(verified.report), report: verified.report, recordedCheckpoints: recorded)
        } catch let error as OperationError {
            switch error {
            case .invalid(let message): return LogVerdict(status: .failed, text: message, report: nil, recordedCheckpoints: recorded)
            case .incompleteCopy(let message): return LogVerdict(status: .incompleteCopy, text: message, report: nil, recordedCheckpoints: recorded)
            case .nothingToDo(let message): return LogVerdict(status: .empty, text: message, report: nil, recordedCheckpoints: recorded)
            default: throw error
            }
        }
    }
}
