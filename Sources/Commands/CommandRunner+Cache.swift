extension CommandRunner {
    /// Drops the cached decision state of a stream, so the next command reads it from the log
    /// (after its events were rewritten in place, e.g. erased).
    public func forgetCachedState(of stream: String) {
        cache?.forget(stream: stream)
    }
}
