/// What a bearer token may do.
package enum Role: String, Sendable, Hashable, CaseIterable {
    /// An app's back end: records actions and reads the views of any user it names.
    case app
    /// One user's own app (a phone app signed in as that user): records that user's actions
    /// and reads that user's views, and a listing's cached details; nothing else. Its token
    /// is bound to the user (``TokenFile/Entry/user``): a path that names another user is 403.
    case user
    /// Reads everything (views, history, the log, stats, metrics); writes nothing.
    case auditor
    /// Everything an app and an auditor may do, and the operations (rebuild, seal, forget).
    case admin
}
