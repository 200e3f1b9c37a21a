import EventLog
import Foundation
import JSONKit

/// One field a view document keeps in its JSON: the key, and how the value at a key path of
/// the document (or of an item in it) is written and read back. A view lists its fields once
/// (``DocumentFields``), and one encoder and decoder walk that list.
///
/// The fields of one object are listed in the order they are written: the stored documents
/// have their keys in byte order, so list them so.
public struct DocumentField<Root>: Sendable {
    /// The JSON key.
    public let key: StaticString
    /// Writes the key and the value (nothing for an absent optional).
    let write: @Sendable (Root, inout JSONWriter) -> Void
    /// Reads the value into `root`; false when it is missing or not of its kind. A field may
    /// also throw its own ``ViewDocumentError`` (naming itself) for a value it cannot use.
    let read: @Sendable (JSONObject, inout Root) throws -> Bool

    /// A field from its writer and reader, for a value no other kind fits (an enum kept as one
    /// of several object shapes).
    public init(_ key: StaticString, write: @escaping @Sendable (Root, inout JSONWriter) -> Void,
                read: @escaping @Sendable (JSONObject, inout Root) throws -> Bool) {
        self.key = key
        self.write = write
        self.read = read
    }

    /// A string.
    public static func string(_ key: StaticString, _ path: WritableKeyPath<Root, String> & Sendable) -> Self {
        Self(key, write: { root, writer in writer.key(key); writer.string(root[keyPath: path]) },
             read: { object, root in
                 guard let value = object.string(key) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// A value kept as the string of its raw value (a category, a unit).
    public static func rawString<Value: RawRepresentable & Sendable>(_ key: StaticString, _ path: WritableKeyPath<Root, Value> & Sendable) -> Self
        where Value.RawValue == String {
        Self(key, write: { root, writer in writer.key(key); writer.string(root[keyPath: path].rawValue) },
             read: { object, root in
                 guard let value = object.string(key).flatMap(Value.init(rawValue:)) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// A number.
    public static func double(_ key: StaticString, _ path: WritableKeyPath<Root, Double> & Sendable) -> Self {
        Self(key, write: { root, writer in writer.key(key); writer.number(root[keyPath: path]) },
             read: { object, root in
                 guard let value = object.number(key) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// A whole number.
    public static func integer(_ key: StaticString, _ path: WritableKeyPath<Root, Int> & Sendable) -> Self {
        Self(key, write: { root, writer in writer.key(key); writer.number(root[keyPath: path]) },
             read: { object, root in
                 guard let value = object.integer(key) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// A whole number that may be absent: nil is not written, and an absent or unusable one reads as nil.
    public static func optionalInteger(_ key: StaticString, _ path: WritableKeyPath<Root, Int?> & Sendable) -> Self {
        Self(key, write: { root, writer in
                 if let value = root[keyPath: path] { writer.key(key); writer.number(value) }
             },
             read: { object, root in
                 root[keyPath: path] = object.integer(key)
                 return true
             })
    }

    /// A time, as ``Timestamp`` text (UTC, microseconds).
    public static func date(_ key: StaticString, _ path: WritableKeyPath<Root, Date> & Sendable) -> Self {
        Self(key, write: { root, writer in writer.key(key); writer.date(root[keyPath: path]) },
             read: { object, root in
                 guard let value = object.string(key).flatMap(EventLogTimestamp.parse) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// JSON kept as it is, byte for byte (never decoded and re-encoded).
    public static func raw(_ key: StaticString, _ path: WritableKeyPath<Root, Data> & Sendable) -> Self {
        Self(key, write: { root, writer in writer.key(key); writer.raw(root[keyPath: path]) },
             read: { object, root in
                 guard let value = object.raw(key) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// An object with fields of its own.
    public static func object<Value>(_ key: StaticString, _ path: WritableKeyPath<Root, Value> & Sendable, _ fields: DocumentFields<Value>) -> Self {
        Self(key, write: { root, writer in writer.key(key); fields.write(root[keyPath: path], to: &writer) },
             read: { object, root in
                 guard let member = object.object(key), let value = try fields.read(member) else { return false }
                 root[keyPath: path] = value
                 return true
             })
    }

    /// An array of objects with fields of their own, in order.
    public static func array<Element>(_ key: StaticString, _ path: WritableKeyPath<Root, [Element]> & Sendable, _ fields: DocumentFields<Element>) -> Self {
        Self(key, write: { root, writer in
                 writer.key(key); writer.beginArray()
                 for element in root[keyPath: path] { fields.write(element, to: &writer) }
                 writer.endArray()
             },
             read: { object, root in
                 guard let ranges = object.array(key) else { return false }
                 var elements: [Element] = []
                 elements.reserveCapacity(ranges.count)
                 for range in ranges {
                     guard let member = JSONObject(object.bytes, range: range), let element = try fields.read(member) else { return false }
                     elements.append(element)
                 }
                 root[keyPath: path] = elements
                 return true
             })
    }
}
