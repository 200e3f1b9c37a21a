import Foundation

/// A user's view document with the version of the user's stream it was read at.
public struct UserView<Document: Sendable>: Sendable {
    /// The document; nil when the user has nothing in this view.
    public var document: Document?
    /// The user's stream version read before the view was caught up: a write that
    /// expects this version decides on no less than the document shows.
    public var streamVersion: Int64

    /// Makes a view.
    public init(document: Document?, streamVersion: Int64) {
        self.document = document
        self.streamVersion = streamVersion
    }
}
