import EventLog
import Foundation

/// How a command started with ``CommandRunner/start(_:context:requiredVersion:mayRead:completion:)`` ended.
public enum StartedOutcome: Sendable {
    /// Its outcome: recorded, or the error that answers it.
    case finished(Result<CommandOutcome, any Error>)
    /// Nothing was written, and it must be handled again with
    /// ``CommandRunner/handle(_:context:requiredVersion:)`` on a thread that may wait: its
    /// append lost a race with another writer, or failed in a way that
    /// ``CommandRunner/handle(_:context:requiredVersion:)`` retries or words; or, decided
    /// when its turn came behind the user's command before it, it was one of those
    /// ``CommandRunner/start(_:context:requiredVersion:mayRead:completion:)`` leaves to
    /// ``CommandRunner/handle(_:context:requiredVersion:)``.
    case handleAgain
}

extension CommandRunner {
    /// Starts a command without holding the calling thread for its commit, when the store
    /// answers appends asynchronously (``AsynchronousAppending``) and the command records
    /// events: it is decided as ``handle(_:context:requiredVersion:)`` decides its first try
    /// (on the cached state with ``decidesOnCachedState``; else, when `mayRead`, on the stream
    /// as read), and appended at that version; `completion` is called with the outcome on the
    /// store's committing thread once it is durable. Everything else is left to
    /// ``handle(_:context:requiredVersion:)`` (false is returned, `completion` is not called):
    /// a decision to record nothing (it is checked on the stream), a request id already among
    /// the user's latest events (its first outcome is read back), an `If-Match` version other
    /// than the state's, a user not cached when `mayRead` is false.
    ///
    /// While another command of the user is under way in this runner, the command waits for
    /// its turn without holding the calling thread (true is returned): it is decided when that
    /// one's append is answered, on the state it left, and what it cannot start then comes
    /// back as ``StartedOutcome/handleAgain``.
    ///
    /// The guarantees are those of ``handle(_:context:requiredVersion:)``: the append's exact
    /// expected version is the check, so a lost race comes back as ``StartedOutcome/handleAgain``
    /// (nothing written) and the command is decided again on the stream; a lost outcome
    /// without a request id is answered as such, never tried twice.
    /// - Returns: whether the command was started (`completion` will be called exactly once).
    /// - Throws: ``CommandError/rejected(field:rule:)`` for a command that breaks a rule, and
    ///   the store's errors of reading the stream when `mayRead`.
    public func start(_ command: UserCommand, context: CommandContext, requiredVersion: Int64? = nil, mayRead: Bool,
                      completion: @escaping @Sendable (StartedOutcome) -> Void) throws -> Bool {
        guard let asynchronous = store as? any AsynchronousAppending else { return false }
        let context = try context.normalized()
        let stream = UserStream.id(for: context.userID)
        // The user's commands before this one in this runner end first (``StreamTurns``).
        // When one is under way, this one waits without holding the calling thread: it is
        // decided when its turn comes, on the committing thread that ended the one before
        // (on the state that one left, so no reading there), or handled again.
        let isFree = turns.take(stream) { [self] in
            let began: Bool
            do {
                began = try begin(command, context: context, stream: stream, requiredVersion: requiredVersion, mayRead: false,
                                  through: asynchronous, completion: completion)
            } catch {
                began = false   // a broken rule: handle(_:context:requiredVersion:) words it
            }
            if !began { completion(.handleAgain) }
            return began
        }
        guard isFree else { return true }
        do {
            if try begin(command, context: context, stream: stream, requiredVersion: requiredVersion, mayRead: mayRead,
                         through: asynchronous, completion: completion) {
                return true
            }
            turns.end(stream)
            return false
        } catch {
            turns.end(stream)
            throw error
        }
    }

    /// Decides a command with the stream's turn held and, when it records events, appends
    /// them; the turn ends when the append's outcome is known, before `completion` is called.
    /// - Returns: whether the append was started (false: nothing was, and the turn is still held).
    private func begin(_ command: UserCommand, context: CommandContext, stream: String, requiredVersion: Int64?, mayRead: Bool,
                       through asynchronous: any AsynchronousAppending,
                       completion: @escaping @Sendable (StartedOutcome) -> Void) throws -> Bool {
        let user = context.userID
        let loaded: LoadedUser
        if let cached = cachedForDeciding(stream: stream) {
            loaded = cached
        } else if mayRead {
            loaded = try load(stream: stream)
        } else {
            return false
        }
        if let requestID = context.requestID,
           loaded.recentEventIDs.contains(RequestIdentity.eventID(user: user, requestID: requestID, index: 0)) {
            return false
        }
        if let requiredVersion, loaded.version != requiredVersion { return false }
        guard case .record(let events) = try UserDecider.decision(command, state: loaded.state) else { return false }
        let proposed = try propose(events, context: context, commandID: Self.commandID(context))
        let hasRequestID = context.requestID != nil
        asynchronous.append(proposed, to: stream, expectedVersion: .exactly(loaded.version)) { [self] result in
            let outcome: StartedOutcome
            switch result {
            case .success(let appended):
                var after = loaded
                for (event, recorded) in zip(events, proposed) {
                    after.state = UserDecider.evolve(after.state, event)
                    after.remember(recorded.id)
                }
                after.version = appended.streamVersion
                after.endsWithTombstone = false
                after.lastEventHash = ""   // read with the next load, before a snapshot is saved
                cache?.keep(after, stream: stream)   // before the turn ends: the next command decides on it
                outcome = .finished(.success(.recorded(eventIDs: proposed.map(\.id), streamVersion: appended.streamVersion,
                                                       positions: appended.positions)))
            case .failure(EventStoreError.outcomeUnknown(let reason)) where !hasRequestID:
                // It may have been written: deciding it again could record it twice.
                outcome = .finished(.failure(EventStoreError.outcomeUnknown(reason)))
            case .failure(EventStoreError.wrongExpectedVersion(_, _, let actual)):
                if actual < loaded.version || requiredVersion != nil { cache?.forget(stream: stream) }
                outcome = .handleAgain
            case .failure:
                // Nothing was written (a duplicate id, the store unavailable, …): the
                // synchronous path retries or answers it as it does any command.
                outcome = .handleAgain
            }
            turns.end(stream)
            completion(outcome)
        }
        return true
    }
}
