/// What a bearer token may do.
package enum Role: String, Sendable, Hashable, CaseIterable {
    /// An app server or phone app: records actions and reads the users' views.
    case app
    /// Reads everything (views, history, the log, stats, metrics); writes nothing.
    case auditor
    /// Everything an app and an auditor may do, and the operations (rebuild, seal, forget).
    case admin
}
