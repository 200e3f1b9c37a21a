import Audit
import EventLog
import Foundation
import Transfer

// A server's rebuild and forget on a store with archives (`evtool archive`, docs/explanation/audit.md
// "Archives"): both fold every view from the first event, and the archived events are only in
// the archive files, which a server is not given. Refused, rather than views made without them.

extension Application {
    /// Refuses `what` (`rebuild`, `forget`) on a store with archives, naming the command-line
    /// call that takes the files.
    /// - Throws: ``ApplicationError/conflict(_:)`` when the store has archives.
    func refuseOnArchivedStore(_ what: String) throws(ApplicationError) {
        do {
            try LogArchive.refuseRebuild(store, what: what)
        } catch let error as OperationError {
            throw ApplicationError.conflict("\(error.description); a server is not given the archive files: run it with the command line")
        } catch {
            throw ApplicationError(error)
        }
    }
}
