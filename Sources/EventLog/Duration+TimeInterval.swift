import Foundation

extension Duration {
    /// The duration in seconds, as Foundation's sleeps and dates take it.
    public var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
