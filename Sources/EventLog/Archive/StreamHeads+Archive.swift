// Stream heads as archives carry them over (``ArchivingStore``).

extension StreamHeads.Head {
    /// A head: the stream's last version and that event's chain hash (32 bytes).
    public init(version: Int64, chainHash: [UInt8]) {
        self.init(version: version, hash: chainHash)
    }
}

extension StreamHeads {
    /// Every stream's head, sorted by the stream id's UTF-8 bytes.
    public var sorted: [(stream: String, head: Head)] {
        heads.sorted(by: { $0.key < $1.key }).map { ($0.key.id, $0.value) }
    }
}
