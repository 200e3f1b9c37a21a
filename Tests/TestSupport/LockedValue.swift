import Foundation

/// A value that test threads share (a flag one raises, an error one records), behind a lock.
public final class LockedValue<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    /// A shared `value`.
    public init(_ value: Value) { self.value = value }

    /// The value now.
    public var current: Value { lock.withLock { value } }

    /// Replaces the value.
    public func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
