import Foundation
import JSONKit

extension JSONWriter {
    /// A time in the ``Timestamp`` text form (RFC 3339, microseconds, UTC).
    public mutating func date(_ value: Date) {
        unescapedString { Timestamp.append(microseconds: Timestamp.microseconds(value), to: &$0) }
    }
}
