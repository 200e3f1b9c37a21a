/// Why a proof or checkpoint asked of an opened store (the HTTP API's `/v1/proofs` and
/// `/v1/checkpoints` routes) cannot be given, with the request parameter at fault.
///
/// The messages are for the requester; they never hold a payload.
public struct ProofRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of refusal.
    public enum Kind: Sendable, Hashable {
        /// Nothing to give: no such event, no recorded checkpoint.
        case notFound
        /// The parameters ask for a proof the tree cannot have (a size beyond it, `from` after `to`,
        /// an event after the size).
        case invalid
        /// The store's kept tree or its recorded checkpoints do not hold together: a proof made
        /// from them would not check (`evtool verify` names what was rewritten). Nothing is handed out.
        case damaged
    }

    /// The kind.
    public var kind: Kind
    /// The request parameter at fault (`event`, `size`, `from`, `to`), nil when none is.
    public var parameter: String?
    /// What is wrong, in words the requester understands.
    public var message: String

    /// A refusal.
    public init(_ kind: Kind, parameter: String? = nil, _ message: String) {
        self.kind = kind
        self.parameter = parameter
        self.message = message
    }

    public var description: String { message }
}
