import Commands
import EventLog
import Foundation

/// What a write started with ``Application/start(_:context:requiredVersion:mayRead:completion:)`` came to.
public enum StartedRecord: Sendable {
    /// Its result, or the error that answers it.
    case finished(Result<RecordResult, ApplicationError>)
    /// Nothing was written: record it with ``Application/record(_:context:requiredVersion:)``
    /// on a thread that may wait.
    case recordAgain
}

extension Application {
    /// Starts recording one user action without holding the calling thread for its commit
    /// (group commit answers it on its committing thread), when it can: see
    /// ``CommandRunner/start(_:context:requiredVersion:mayRead:completion:)``. A server calls
    /// it on the thread that read the request (`mayRead` false: only a cached user's action
    /// starts there) or on a thread that may read the user's stream first.
    /// - Returns: whether it started (`completion` is then called exactly once, on a thread of
    ///   the store that must not be held: answer and return); false leaves the action to
    ///   ``record(_:context:requiredVersion:)``.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` for a broken rule; the store's
    ///   failures of reading the stream.
    public func start(_ command: UserCommand, context: CommandContext, requiredVersion: Int64? = nil, mayRead: Bool,
                      completion: @escaping @Sendable (StartedRecord) -> Void) throws(ApplicationError) -> Bool {
        guard groupCommit != nil else { return false }
        let type = Self.eventType(of: command)
        do {
            // The ids as the runner records them (NFC), as record takes them.
            let context = try context.normalized()
            let user = context.userID
            return try runner.start(command, context: context, requiredVersion: requiredVersion, mayRead: mayRead) { outcome in
                switch outcome {
                case .finished(.success(.recorded(let ids, let version, let positions))):
                    // Before the answer, as record does: a read after it must not be answered
                    // from a memory filled before this write.
                    self.touchViewMemory(command, user: user, through: positions.upperBound)
                    completion(.finished(.success(RecordResult(user: user, type: type, eventIDs: ids, positions: positions, streamVersion: version,
                                                               unchanged: nil, isReplay: false))))
                case .finished(.success(.unchanged)), .handleAgain:
                    completion(.recordAgain)
                case .finished(.failure(let error)):
                    completion(.finished(.failure(ApplicationError(error))))
                }
            }
        } catch {
            throw ApplicationError(error)
        }
    }
}
