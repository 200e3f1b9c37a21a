/// A ticket price range.
public struct PriceRange: Sendable, Hashable, Codable {
    /// The lowest price; finite and not negative.
    public var minimum: Double
    /// The highest price; finite and at least ``minimum``.
    public var maximum: Double
    /// The ISO 4217 currency code, e.g. `USD`, when the source gave one.
    public var currency: String?

    /// Makes a price range.
    public init(minimum: Double, maximum: Double, currency: String? = nil) {
        self.minimum = minimum
        self.maximum = maximum
        self.currency = currency
    }
}
