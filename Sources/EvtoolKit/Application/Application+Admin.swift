import Audit
import Commands
import EventLog
import Foundation
import Projections
import StoreLocations
import StoreSQLite
import Transfer

/// The operations of an administrator (`evtool rebuild`, `seal`, `forget`; the HTTP API's
/// `/v1/admin` routes), through the application's own projector and runner, so a running
/// server's reads and its cached user states follow at once.
extension Application {
    /// Rebuilds views (all, or those named) from the whole log in new generations and swaps each
    /// in; readers keep the old ones meanwhile.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` (field `views`) for a name that is
    ///   no view; the store's failures.
    public func rebuildViews(_ names: [String]? = nil) throws(ApplicationError) -> RebuildResult {
        let started = ContinuousClock.now
        let names = Projector.distinct(names)
        do {
            for name in names ?? [] where !projector.names.contains(name) {
                throw ApplicationError.invalid(field: "views", message: "no view named '\(name)'; views: \(projector.names.joined(separator: ", "))")
            }
            try refuseOnArchivedStore("rebuild")
            let head = try projector.rebuild(names)
            viewMemory.clear()
            return try RebuildResult(projector, store: store, names: names, head: head, since: started)
        } catch {
            throw ApplicationError(error)
        }
    }

    /// Verifies the whole log, then records a seal over every stream's head (as `evtool seal`),
    /// and makes the checkpoint of the sealed events' Merkle tree, signed with `signingKey`.
    /// - Throws: ``ApplicationError/conflict(_:)`` when the store holds no events (nothing to
    ///   seal); ``ApplicationError/failed(_:)`` when the log fails verification (nothing is
    ///   sealed then) or the store keeps no seals; the store's failures.
    public func seal(signingKey: Ed25519Key? = nil) throws(ApplicationError) -> SealResult {
        do {
            // The one way a seal is made (``LogAudit/seal(_:location:key:makeCheckpoint:progress:)``):
            // verify, extend and check the kept tree, seal, make and record the checkpoint.
            // The location only names the store in messages, and those are worded here.
            let sealing = try LogAudit.seal(store, location: .postgres(url: "the server's store"), key: signingKey, makeCheckpoint: true)
            guard sealing.checkpoint != nil else { throw ApplicationError.failed("seal \(sealing.seal.number) was recorded without its checkpoint") }
            return sealing
        } catch OperationError.nothingToDo {
            throw ApplicationError.conflict("the store holds no events: nothing to seal")
        } catch OperationError.unsupported {
            throw ApplicationError.failed("this store cannot keep seals")
        } catch let error as OperationError {
            throw ApplicationError.failed(error.description)
        } catch let error as ApplicationError {
            throw error
        } catch {
            throw ApplicationError(error)
        }
    }

    /// Erases a user as `evtool forget` does: their events' payloads become tombstones (their
    /// digests kept, so the chain still verifies), a `UserErased` event records who and why, the
    /// views are rebuilt, and an SQLite file is rewritten so the erased bytes leave it. The
    /// runner's cached state of the user is dropped, so the next command decides on the log.
    /// - Throws: ``ApplicationError/invalid(field:message:)`` for an empty reason or operator,
    ///   a malformed user id or a user with no events; the store's failures.
    public func forget(user typed: String, reason: String, operatorName: String) throws(ApplicationError) -> ErasureResult {
        do {
            try LogAudit.checkErasure(reason: reason, operatorName: operatorName)
            guard let auditable = store as? any AuditableEventStore else {
                throw ApplicationError.failed("this store cannot erase users")
            }
            try refuseOnArchivedStore("forget")
            let user = try UserStream.existing(typed: typed, in: store)
            let stream = UserStream.id(for: user)
            let outcome = try auditable.erase(Erasure.Request(stream: stream, reason: reason, operatorName: operatorName,
                                                                          views: Views.erasedDocuments))
            runner.forgetCachedState(of: stream)
            let head = try projector.rebuild()
            viewMemory.clear()
            var walEmptied: Bool?
            if let file = store as? SQLiteEventStore { walEmptied = try file.compact() }
            return ErasureResult(user: user, operatorName: operatorName, outcome: outcome, rebuiltThrough: head, walEmptied: walEmptied)
        } catch {
            throw ApplicationError(error)
        }
    }
}
