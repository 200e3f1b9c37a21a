import Foundation

extension UUID {
    /// A new time-ordered UUID (RFC 9562 version 7): 48 bits of Unix milliseconds, then
    /// random bits.
    ///
    /// Event ids are the key of a unique index in every store. Random (version 4) ids land
    /// on a random index page each, so every commit rewrites pages all over the index;
    /// time-ordered ids land at its right edge, which keeps appends fast as the log grows.
    public static func timeOrdered() -> UUID {
        var generator = SystemRandomNumberGenerator()
        return timeOrdered(milliseconds: UInt64(Date().timeIntervalSince1970 * 1000), using: &generator)
    }

    /// A version-7 UUID for a given time, with random bits from `generator`.
    public static func timeOrdered<G: RandomNumberGenerator>(milliseconds: UInt64, using generator: inout G) -> UUID {
        var bytes = (generator.next() as UInt64, generator.next() as UInt64)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<6 { raw[index] = UInt8(truncatingIfNeeded: milliseconds >> (40 - 8 * UInt64(index))) }
            raw[6] = (raw[6] & 0x0F) | 0x70
            raw[8] = (raw[8] & 0x3F) | 0x80
            return UUID(uuid: raw.load(as: uuid_t.self))
        }
    }
}
