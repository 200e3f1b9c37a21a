import Foundation

/// The parameters of one statement, encoded for libpq in PostgreSQL's binary wire format
/// (so no value is ever quoted or escaped into SQL text).
///
/// All values live in one buffer; `offsets`, `lengths` and `formats` describe them.
struct PostgresBinds {
    /// Starts with one padding byte so that it always has a base address, even when every
    /// value is empty.
    private(set) var buffer: [UInt8] = [0]
    private(set) var offsets: [Int] = []
    private(set) var lengths: [Int32] = []
    private(set) var formats: [Int32] = []
    private(set) var isNull: [Bool] = []

    /// The number of parameters.
    var count: Int { lengths.count }

    /// Reserves room for about `bytes` bytes of values.
    init(capacity bytes: Int = 64) {
        buffer.reserveCapacity(bytes)
    }

    private mutating func begin() { offsets.append(buffer.count); formats.append(1); isNull.append(false) }
    private mutating func end() { lengths.append(Int32(buffer.count - offsets[offsets.count - 1])) }

    /// A `bigint` (int8).
    mutating func append(int8 value: Int64) {
        begin(); appendBigEndian(value); end()
    }

    /// An `integer` (int4).
    mutating func append(int4 value: Int32) {
        begin(); appendBigEndian(value); end()
    }

    /// A `text` value: its UTF-8 bytes.
    mutating func append(text value: String) {
        begin(); buffer.append(contentsOf: value.utf8); end()
    }

    /// A `uuid`: its 16 bytes.
    mutating func append(uuid value: UUID) {
        begin(); withUnsafeBytes(of: value.uuid) { buffer.append(contentsOf: $0) }; end()
    }

    /// A `json` value: its bytes as they are.
    mutating func append(json value: Data) {
        begin(); buffer.append(contentsOf: value); end()
    }

    /// A `timestamptz` from microseconds since 1970, or NULL for nil.
    mutating func append(timestamptz value: Int64?) {
        begin()
        if let value {
            appendBigEndian(value - 946_684_800_000_000)   // the wire counts from 2000-01-01
        } else {
            isNull[isNull.count - 1] = true
        }
        end()
    }

    /// A `uuid[]` array.
    mutating func append(uuidArray values: [UUID]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.uuid)
        for value in values {
            appendBigEndian(Int32(16))
            withUnsafeBytes(of: value.uuid) { buffer.append(contentsOf: $0) }
        }
        end()
    }

    /// A `uuid[]` array whose nil elements are NULL.
    mutating func append(nullableUUIDArray values: [UUID?]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.uuid, hasNulls: values.contains(nil))
        for value in values {
            if let value {
                appendBigEndian(Int32(16))
                withUnsafeBytes(of: value.uuid) { buffer.append(contentsOf: $0) }
            } else {
                appendBigEndian(Int32(-1))
            }
        }
        end()
    }

    /// A `text[]` array.
    mutating func append(textArray values: [String]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.text)
        for value in values {
            appendBigEndian(Int32(value.utf8.count))
            buffer.append(contentsOf: value.utf8)
        }
        end()
    }

    /// An `integer[]` array.
    mutating func append(int4Array values: [Int32]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.int4)
        for value in values { appendBigEndian(Int32(4)); appendBigEndian(value) }
        end()
    }

    /// A `bigint[]` array.
    mutating func append(int8Array values: [Int64]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.int8)
        for value in values { appendBigEndian(Int32(8)); appendBigEndian(value) }
        end()
    }

    /// A `timestamptz[]` array from microseconds since 1970; nil elements are NULL.
    mutating func append(timestamptzArray values: [Int64?]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.timestamptz, hasNulls: values.contains(nil))
        for value in values {
            if let value {
                appendBigEndian(Int32(8))
                appendBigEndian(value - 946_684_800_000_000)   // the wire counts from 2000-01-01
            } else {
                appendBigEndian(Int32(-1))
            }
        }
        end()
    }

    /// A `json[]` array: each element's bytes are sent as they are.
    mutating func append(jsonArray values: [Data]) {
        append(byteStrings: values, elementType: PostgresType.json)
    }

    /// A `bytea[]` array.
    mutating func append(byteaArray values: [[UInt8]]) {
        append(byteStrings: values, elementType: PostgresType.bytea)
    }

    /// An array of elements whose binary form is their bytes as they are (`json`, `bytea`).
    private mutating func append<Element: Collection<UInt8>>(byteStrings values: [Element], elementType: UInt32) {
        begin()
        appendArrayHeader(count: values.count, elementType: elementType)
        for value in values {
            appendBigEndian(Int32(value.count))
            buffer.append(contentsOf: value)
        }
        end()
    }

    /// A `bigint[]` array whose nil elements are NULL.
    mutating func append(nullableInt8Array values: [Int64?]) {
        begin()
        appendArrayHeader(count: values.count, elementType: PostgresType.int8, hasNulls: values.contains(nil))
        for value in values {
            if let value { appendBigEndian(Int32(8)); appendBigEndian(value) } else { appendBigEndian(Int32(-1)) }
        }
        end()
    }

    /// The binary array header of `array_recv`: one dimension, no nulls, lower bound 1.
    private mutating func appendArrayHeader(count: Int, elementType: UInt32, hasNulls: Bool = false) {
        appendBigEndian(Int32(1))                 // dimensions
        appendBigEndian(Int32(hasNulls ? 1 : 0))  // flags: whether there are NULL elements
        appendBigEndian(UInt32(elementType))      // element type oid
        appendBigEndian(Int32(count))             // length of the dimension
        appendBigEndian(Int32(1))                 // lower bound
    }

    private mutating func appendBigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { buffer.append(contentsOf: $0) }
    }
}

/// Type OIDs of the built-in types this store binds and reads (stable across releases).
enum PostgresType {
    static let bool: UInt32 = 16
    static let bytea: UInt32 = 17
    static let byteaArray: UInt32 = 1001
    static let int8: UInt32 = 20
    static let int4: UInt32 = 23
    static let text: UInt32 = 25
    static let json: UInt32 = 114
    static let jsonArray: UInt32 = 199
    static let textArray: UInt32 = 1009
    static let timestamptz: UInt32 = 1184
    static let timestamptzArray: UInt32 = 1185
    static let int4Array: UInt32 = 1007
    static let int8Array: UInt32 = 1016
    static let uuid: UInt32 = 2950
    static let uuidArray: UInt32 = 2951
}
