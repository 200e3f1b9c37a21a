import Commands
import EventLog
import Foundation
import JSONKit

/// Snapshots of one user's views at fixed versions of their stream (every ``interval``
/// events: versions 1,000, 2,000, …), so that a view as of a past position is the nearest
/// snapshot at or before it plus at most ``interval`` events, not a read of the stream from
/// its first event.
///
/// Kept in the store's ``SnapshotDocuments`` under the kind `view.NAME.vVERSION` (a view
/// whose code changes version never reads another version's snapshots), slot = the stream
/// version. A snapshot is only used when the event it ends with is still the one it was made
/// from: same version, id and chain hash (which covers the stream id and every event before),
/// not erased since; and its `check` (SHA-256 over all of it) matches. Anything else is
/// ignored and the stream folded from its start, so a snapshot never changes an answer.
public enum ViewSnapshots {
    /// Stream versions between two snapshots of a view.
    public static let interval: Int64 = 1_000

    /// The snapshot kind of a projection.
    public static func kind(of projection: some Projection) -> String {
        "view.\(projection.name).v\(projection.version)"
    }

    /// The user-keyed views.
    static var userViews: [any Projection] { Views.all.filter(\.isKeyedByUser) }

    // MARK: - Writing

    /// Makes the snapshots of every user-keyed view for the slots a stream has passed up to
    /// `version` that are not kept yet: from the highest kept slot that still fits (or the
    /// stream's start) to the highest slot at or below `version`.
    ///
    /// Cost: one lookup when the slot is kept; otherwise a lookup per slot below it down to a
    /// kept one, and one read of the events between (`interval` events when the stream grows
    /// in order; the whole stream the first time for a stream made before snapshots existed).
    public static func update(stream: String, through version: Int64, in store: any EventStore & SnapshotDocuments) throws {
        let target = version / interval * interval
        guard target > 0, let first = userViews.first else { return }
        if try store.snapshotDocument(kind: kind(of: first), slot: target, stream: stream) != nil { return }
        var base: Int64 = 0
        var slot = target - interval
        while slot > 0 {
            if try store.snapshotDocument(kind: kind(of: first), slot: slot, stream: stream) != nil { base = slot; break }
            slot -= interval
        }
        let user = UserStream.userID(ofStream: stream)
        var folds = userViews.map { AnyFold($0, user: user) }
        if base > 0 {
            let ends = try store.read(stream: stream, from: base, direction: .forwards, limit: 1).first
            for index in folds.indices where !(try folds[index].start(from: store, stream: stream, slot: base, endingWith: ends)) {
                base = 0
                break
            }
            if base == 0 { folds = userViews.map { AnyFold($0, user: user) } }
        }
        var next = base + 1
        var pending: [SnapshotDocument] = []
        while next <= target {
            let batch = try store.read(stream: stream, from: next, direction: .forwards, limit: Int(min(1_000, target - next + 1)))
            guard !batch.isEmpty else { return }
            for recorded in batch {
                let event = ViewEvent.decode(recorded)
                for index in folds.indices { folds[index].apply(recorded, event) }
                if recorded.version % interval == 0 {
                    pending += folds.map { $0.snapshot(stream: stream, endingWith: recorded) }
                }
            }
            if pending.count >= 300 { try store.saveSnapshotDocuments(pending); pending = [] }
            next = batch[batch.count - 1].version + 1
        }
        try store.saveSnapshotDocuments(pending)
    }

    // MARK: - Reading

    /// A user-keyed view's document as of a position, from the nearest snapshot that fits at or
    /// before it and the stream's events up to the position; nil when no snapshot is usable
    /// (the caller then folds the stream from its start, up to `version`: the stream's
    /// version at the position, found on the way).
    ///
    /// Cost: about log2(stream length) one-event reads to find the stream's version at the
    /// position, a lookup or two, and a read of at most ``interval`` events.
    static func document<P: Projection>(_ projection: P, key: String, asOf position: Int64, in store: any EventStore & SnapshotDocuments) throws -> (found: Bool, document: P.Document?, version: Int64) {
        let stream = UserStream.id(for: key)
        let last = try StreamSearch.firstVersion(of: stream, afterPosition: position, in: store) - 1
        var slot = last / interval * interval
        var tries = 0
        while slot > 0, tries < 2 {
            tries += 1
            var fold = Fold(projection, documentKey: projection.documentKey(key))
            let ends = try store.read(stream: stream, from: slot, direction: .forwards, limit: 1).first
            if try fold.start(from: store, stream: stream, slot: slot, endingWith: ends) {
                var next = slot + 1
                while next <= last {
                    let batch = try store.read(stream: stream, from: next, direction: .forwards, limit: Int(min(1_000, last - next + 1)))
                    guard let end = batch.last else { break }
                    for recorded in batch where recorded.position <= position { fold.apply(recorded) }
                    next = end.version + 1
                }
                return (true, fold.document, last)
            }
            slot -= interval
        }
        return (false, nil, last)
    }

    // MARK: - The snapshot document

    /// One view's document for one user being folded, with what its snapshot says about the
    /// event it ends with.
    struct Fold<P: Projection> {
        let projection: P
        let documentKey: String
        var document: P.Document?

        init(_ projection: P, documentKey: String) {
            self.projection = projection
            self.documentKey = documentKey
        }

        /// Applies `recorded`, decoded only when its type is one the view reads.
        mutating func apply(_ recorded: RecordedEvent) {
            guard projection.reads(type: recorded.type) else { return }
            apply(recorded, ViewEvent.decode(recorded))
        }

        mutating func apply(_ recorded: RecordedEvent, _ event: ViewEvent?) {
            guard let event, let key = projection.key(for: event), key == documentKey else { return }
            projection.evolve(&document, with: event)
        }

        /// Starts from the snapshot in `slot` if it fits `ends` (the stream's event at `slot`).
        mutating func start(from store: any SnapshotDocuments, stream: String, slot: Int64, endingWith ends: RecordedEvent?) throws -> Bool {
            guard let ends, ends.version == slot,
                  let data = try store.snapshotDocument(kind: ViewSnapshots.kind(of: projection), slot: slot, stream: stream),
                  let header = SnapshotHeader(data),
                  header.fits(ends), header.check == SnapshotHeader.check(header.fields, documentJSON: header.documentJSON) else { return false }
            if let json = header.documentJSON {
                guard let decoded = try? P.Document.decode(json), decoded.jsonData == json else { return false }
                document = decoded
            } else {
                document = nil
            }
            return true
        }

        func snapshot(stream: String, endingWith recorded: RecordedEvent) -> SnapshotDocument {
            let fields = SnapshotHeader.Fields(version: recorded.version, eventID: recorded.id.lowercaseString, hash: recorded.hash,
                                               tombstone: Erasure.isTombstone(recorded))
            return SnapshotDocument(kind: ViewSnapshots.kind(of: projection), slot: recorded.version, stream: stream,
                                    document: SnapshotHeader.encode(fields, documentJSON: document?.jsonData))
        }
    }

    /// A ``Fold`` of any projection, for folding every user view in one pass.
    struct AnyFold {
        private var applyBody: (RecordedEvent, ViewEvent?) -> Void
        private let startBody: (any SnapshotDocuments, String, Int64, RecordedEvent?) throws -> Bool
        private let snapshotBody: (String, RecordedEvent) -> SnapshotDocument

        init<P: Projection>(_ projection: P, user: String) {
            let box = FoldBox(Fold(projection, documentKey: projection.documentKey(user)))
            applyBody = { box.fold.apply($0, $1) }
            startBody = { try box.fold.start(from: $0, stream: $1, slot: $2, endingWith: $3) }
            snapshotBody = { box.fold.snapshot(stream: $0, endingWith: $1) }
        }

        mutating func apply(_ recorded: RecordedEvent, _ event: ViewEvent?) { applyBody(recorded, event) }
        mutating func start(from store: any SnapshotDocuments, stream: String, slot: Int64, endingWith ends: RecordedEvent?) throws -> Bool {
            try startBody(store, stream, slot, ends)
        }
        func snapshot(stream: String, endingWith recorded: RecordedEvent) -> SnapshotDocument {
            snapshotBody(stream, recorded)
        }
    }

    final class FoldBox<P: Projection> {
        var fold: Fold<P>
        init(_ fold: Fold<P>) { self.fold = fold }
    }
}

/// The JSON of a view snapshot: `{"check":"…","document":{…}|null,"eventID":"…","hash":"…","tombstone":false,"version":1000}`.
struct SnapshotHeader {
    struct Fields: Equatable {
        var version: Int64
        var eventID: String
        var hash: String
        var tombstone: Bool
    }

    var fields: Fields
    var check: String
    /// The view document's JSON as the view writes it; nil for no document.
    var documentJSON: Data?

    /// Whether the snapshot was made from `event` as it is now (not erased since).
    func fits(_ event: RecordedEvent) -> Bool {
        fields.version == event.version && fields.eventID == event.id.lowercaseString && fields.hash == event.hash
            && fields.tombstone == Erasure.isTombstone(event)
    }

    static func check(_ fields: Fields, documentJSON: Data?) -> String {
        var bytes = Data("evtool view snapshot\n\(fields.version)\n\(fields.eventID)\n\(fields.hash)\n\(fields.tombstone)\n".utf8)
        bytes.append(documentJSON ?? Data("null".utf8))
        return SHA256Hasher.digest(bytes).hexString
    }

    static func encode(_ fields: Fields, documentJSON: Data?) -> Data {
        var data = Data(#"{"check":"\#(check(fields, documentJSON: documentJSON))","version":\#(fields.version),"eventID":"\#(fields.eventID)","hash":"\#(fields.hash)","tombstone":\#(fields.tombstone),"document":"#.utf8)
        data.append(documentJSON ?? Data("null".utf8))
        data.append(Data("}".utf8))
        return data
    }

    /// Reads a snapshot written by ``encode(_:documentJSON:)``; nil for anything else.
    init?(_ data: Data) {
        guard let object = JSONObject(data), let check = object.string("check"), let version = object.integer("version"),
              let eventID = object.string("eventID"), let hash = object.string("hash"),
              let tombstone = object.raw("tombstone").flatMap({ $0 == Data("true".utf8) ? true : $0 == Data("false".utf8) ? false : nil }),
              let document = object.raw("document") else { return nil }
        self.fields = Fields(version: Int64(version), eventID: eventID, hash: hash, tombstone: tombstone)
        self.check = check
        self.documentJSON = document == Data("null".utf8) ? nil : document
    }
}
