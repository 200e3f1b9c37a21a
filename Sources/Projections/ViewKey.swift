import EventLog

/// The keys views file their documents under, by the identity rule of ``Identifier``.
///
/// A user is a stream, and the stores tell streams apart by the bytes of their ids, so a
/// user's document is filed under ``Identifier/exactKey(_:)`` of the stream id: the id itself
/// (every id recorded now is NFC), and for a stream written before the rule whose id is not
/// NFC a key of its own, so that two canonically equal ids never share a document. A listing
/// is an id inside payloads, recorded in NFC and compared by canonical equivalence (as the
/// command rules compare favorites), so a listing's document is filed under its NFC form.
public enum ViewKey {
    /// The document key of a user's view: exact to the bytes of the stream id.
    @inline(__always)
    public static func user(_ streamID: String) -> String { Identifier.exactKey(streamID) }

    /// The document key of a listing's view: the listing id in NFC.
    @inline(__always)
    public static func listing(_ listingID: String) -> String { Identifier.nfc(listingID) }
}

extension Projection {
    /// The key this view files the document of `id` under: ``ViewKey/user(_:)`` of a stream id
    /// for views keyed by user, ``ViewKey/listing(_:)`` otherwise. Both are idempotent, so a
    /// key that already is a document key comes back unchanged.
    public func documentKey(_ id: String) -> String {
        isKeyedByUser ? ViewKey.user(id) : ViewKey.listing(id)
    }
}
