import EventLog

/// What the kept Merkle tree's writes are, measured: each tile row (`level/idx`) and the bytes
/// of its hashes, read before and after an append or an extension; a row that is new or grew
/// is one write (a tile only grows). So `bench audit` reports the extra writes of an append
/// and of the follower as counted, not as designed.
enum TileShapes {
    /// How many one-event appends are measured this way (each costs three reads of the tiles).
    static let sampled = 100

    /// The shapes from `level/idx/bytes` words separated by spaces.
    static func parse(_ text: String) -> [String: Int64] {
        var shapes: [String: Int64] = [:]
        for word in text.split(separator: " ") {
            let parts = word.split(separator: "/")
            guard parts.count == 3, let bytes = Int64(parts[2]) else { continue }
            shapes["\(parts[0])/\(parts[1])"] = bytes
        }
        return shapes
    }

    /// The rows new or grown from `before` to `after`.
    static func written(from before: [String: Int64], to after: [String: Int64]) -> Int {
        after.filter { before[$0.key] != $0.value }.count
    }

    /// The clause for a batched append's tile writes.
    static func appendsLine(_ writes: Int) -> String {
        "appends themselves: \(writes.counted("tile write")) (the first batch, measured)"
    }

    /// The tile writes of the one-event path's sampled appends and extensions.
    struct Writes {
        var appends = 0
        /// Tile rows the appends themselves wrote (none: the tree is the follower's).
        var appendRows = 0
        /// Tile rows the follower wrote, and its extensions that wrote any (each one transaction).
        var followerRows = 0
        var followerWrites = 0

        mutating func add(before: [String: Int64], appended: [String: Int64], followed: [String: Int64]) {
            appends += 1
            appendRows += TileShapes.written(from: before, to: appended)
            let rows = TileShapes.written(from: appended, to: followed)
            followerRows += rows
            if rows > 0 { followerWrites += 1 }
        }

        /// "measured over the first 100: …", against the target of at most one extra small
        /// write per append: the follower's transaction (a tile row or two, one commit), and
        /// any tile row the append itself wrote.
        var line: String {
            guard appends > 0 else { return "no append measured" }
            let extra = Double(followerWrites + appendRows) / Double(appends)
            return "measured over the first \(appends): the appends wrote \(appendRows.counted("tile row")), the follower \(String(format: "%.2f", Double(followerWrites) / Double(appends))) writes per append (one transaction each, \(String(format: "%.2f", Double(followerRows) / Double(appends))) tile rows) (target ≤ 1 extra small write per append: \(extra <= 1 ? "ok" : "MISSED"))"
        }
    }
}
