/// The member names of one object that a reader scanning it (``JSONScan/forEachMember(_:_:_:)``)
/// has taken. A name it reads given twice makes the object unusable: JSON decoders differ on
/// which of two equal names wins, so a reader that must answer as Foundation's decoder does
/// leaves such an object to it. (`forEachMember` already refuses names written with escapes.)
@frozen public struct MemberNames {
    @usableFromInline let raw: UnsafeRawBufferPointer
    @usableFromInline var seen: UInt32 = 0
    @usableFromInline var repeated = false
    /// False once a read name came twice.
    @inlinable public var usable: Bool { !repeated }

    /// Names read from the object in `raw`.
    @inlinable public init(_ raw: UnsafeRawBufferPointer) { self.raw = raw }

    /// Whether the name at `range` is `expected` (number `bit`, below 32, of this object's
    /// names), seen for the first time.
    @inline(__always)
    @inlinable public mutating func first(_ range: Range<Int>, _ expected: StaticString, _ bit: UInt32) -> Bool {
        guard JSONScan.equals(raw, range, expected) else { return false }
        let mask: UInt32 = 1 << bit
        if seen & mask != 0 { repeated = true; return false }
        seen |= mask
        return true
    }
}
