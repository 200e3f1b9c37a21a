import Foundation

/// A proof as `evtool prove` prints it and `evtool check-proof` reads it: a few text lines,
/// the hashes in base64 like a checkpoint's root. Read strictly: each hash in the one text
/// evtool writes for it (canonical base64, lower-case hex: ``CanonicalText``).
///
///     evtool inclusion proof
///     index 3
///     size 12
///     event 0193…-…            (the event's id)
///     entry <hex chain hash>   (the leaf's entry: the event's chain hash)
///     previous <hex chain hash>  (the hash before it in its stream, zeros for version 1)
///     <audit path hash, base64, one a line>
///
///     evtool consistency proof
///     from 5
///     to 12
///     <proof hash, base64, one a line>
public enum ProofDocument: Sendable, Hashable {
    /// That the event with `event` id and chain hash `entry` is leaf `index` of the tree of `size`;
    /// `previous` (the chain hash before it in its stream) lets a holder of the event recompute `entry`.
    case inclusion(index: UInt64, size: UInt64, event: UUID, entry: [UInt8], previous: [UInt8], path: [[UInt8]])
    /// That the tree of `from` events is a prefix of the tree of `to`.
    case consistency(from: UInt64, to: UInt64, path: [[UInt8]])

    /// The document's text.
    public var text: String {
        let hashes: [[UInt8]]
        var text: String
        switch self {
        case .inclusion(let index, let size, let event, let entry, let previous, let path):
            text = "evtool inclusion proof\nindex \(index)\nsize \(size)\nevent \(event.lowercaseString)\nentry \(entry.hexString)\nprevious \(previous.hexString)\n"
            hashes = path
        case .consistency(let from, let to, let path):
            text = "evtool consistency proof\nfrom \(from)\nto \(to)\n"
            hashes = path
        }
        return text + hashes.map { Data($0).base64EncodedString() + "\n" }.joined()
    }

    /// Reads a proof's text.
    /// - Throws: ``MerkleProofError/malformed(_:)`` naming the line that is wrong.
    public init(text: String) throws(MerkleProofError) {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        func field(_ line: Int, _ name: String) throws(MerkleProofError) -> String {
            guard line < lines.count, lines[line].hasPrefix(name + " ") else {
                throw .malformed("line \(line + 1): expected '\(name) …'")
            }
            return String(lines[line].dropFirst(name.count + 1))
        }
        func number(_ line: Int, _ name: String) throws(MerkleProofError) -> UInt64 {
            let value = try field(line, name)
            guard let number = UInt64(value), String(number) == value else { throw .malformed("line \(line + 1): '\(value)' is not a number") }
            return number
        }
        func hashes(from start: Int) throws(MerkleProofError) -> [[UInt8]] {
            var hashes: [[UInt8]] = []
            for line in lines.indices.dropFirst(start) {
                guard let hash = CanonicalText.base64(lines[line]), hash.count == MerkleHash.size else {
                    throw .malformed("line \(line + 1): not a SHA-256 hash in canonical base64 (44 characters ending in one '=')")
                }
                hashes.append(hash)
            }
            return hashes
        }
        switch lines.first {
        case "evtool inclusion proof":
            let index = try number(1, "index"), size = try number(2, "size")
            let idText = try field(3, "event")
            guard let id = UUID(uuidString: idText) else { throw .malformed("line 4: '\(idText)' is not an event id") }
            let entryText = try field(4, "entry")
            guard let entry = CanonicalText.lowercaseHex(entryText), entry.count == MerkleHash.size else {
                throw .malformed("line 5: '\(entryText)' is not a chain hash (64 lower-case hex digits)")
            }
            let previousText = try field(5, "previous")
            guard let previous = CanonicalText.lowercaseHex(previousText), previous.count == MerkleHash.size else {
                throw .malformed("line 6: '\(previousText)' is not a chain hash (64 lower-case hex digits)")
            }
            self = .inclusion(index: index, size: size, event: id, entry: entry, previous: previous, path: try hashes(from: 6))
        case "evtool consistency proof":
            let from = try number(1, "from"), to = try number(2, "to")
            self = .consistency(from: from, to: to, path: try hashes(from: 3))
        default:
            throw .malformed("line 1: not 'evtool inclusion proof' or 'evtool consistency proof'")
        }
    }
}
