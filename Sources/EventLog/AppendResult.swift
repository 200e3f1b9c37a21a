/// What a successful append reports.
public struct AppendResult: Sendable, Hashable {
    /// The stream's version after the append (the version of its last new event).
    public var streamVersion: Int64
    /// The positions given to the appended events, in order; contiguous in every store.
    public var positions: ClosedRange<Int64>

    /// Makes an append result.
    public init(streamVersion: Int64, positions: ClosedRange<Int64>) {
        self.streamVersion = streamVersion
        self.positions = positions
    }
}
