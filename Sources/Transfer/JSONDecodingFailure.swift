import Foundation
import JSONKit

/// Why a JSON document did not decode as the type asked for, in JSON's words rather than
/// Swift's (`'artists[0].followers' must be a whole number`, not `'artists.Index 0.followers'
/// is not a Int`): the command line's `--details` and `--results` files and the server's
/// request bodies say it the same way.
public struct JSONDecodingFailure: Error, Sendable, CustomStringConvertible {
    /// The member at fault as a path (`results.count`, `artists[0].name`); nil for the whole document.
    public var field: String?
    /// What is wrong with it: `is missing`, `must be a number`.
    public var problem: String
    /// Whether the text is not JSON at all (an HTTP 400; a document of the wrong shape is a 422).
    public var isSyntax: Bool

    /// `'results.count' must be a whole number`, or `the document must be an object`.
    public var description: String {
        field.map { "'\($0)' \(problem)" } ?? "the document \(problem)"
    }

    /// Decodes `data` as `T` with Foundation's decoder.
    /// - Throws: ``JSONDecodingFailure`` for text that is not JSON, a member given twice in one
    ///   object, or a document of another shape.
    public static func decode<T: Decodable>(_: T.Type, from data: Data) throws(JSONDecodingFailure) -> T {
        let value: T
        do {
            value = try JSONDecoder().decode(T.self, from: data)
        } catch let error as DecodingError {
            let failure = JSONDecodingFailure(error)
            guard failure.isSyntax else { throw failure }
            throw syntaxOrRange(data)
        } catch {
            throw syntaxOrRange(data)
        }
        // Foundation kept one of two same-named members without a word; the text is JSON here.
        if let twice = JSONSyntax.duplicateMember(in: data) {
            throw JSONDecodingFailure(field: twice, problem: "is given twice (a member name must be unique in its object)", isSyntax: false)
        }
        return value
    }

    /// Text Foundation would not parse: not JSON (what is wrong, from JSONKit's checker), or
    /// JSON with a value Foundation will not take for its member (1e999, 1e-400, 1.5 for a whole
    /// number, a lone surrogate `\ud800`: Foundation's decoder does not say which member then).
    static func syntaxOrRange(_ data: Data) -> JSONDecodingFailure {
        if let syntax = JSONSyntax.problem(in: data) {
            return JSONDecodingFailure(field: nil, problem: "is not valid JSON: \(syntax)", isSyntax: true)
        }
        return JSONDecodingFailure(field: nil, problem: "holds a value Foundation's decoder cannot take (a number out of range, a fraction where a whole number must be, or a string with a lone surrogate)", isSyntax: false)
    }

    init(field: String?, problem: String, isSyntax: Bool) {
        self.field = field
        self.problem = problem
        self.isSyntax = isSyntax
    }

    /// The failure a decoding error describes.
    init(_ error: DecodingError) {
        switch error {
        case let .keyNotFound(key, context):
            self.init(field: Self.path(context.codingPath + [key]), problem: "is missing", isSyntax: false)
        case let .typeMismatch(type, context):
            self.init(field: Self.path(context.codingPath), problem: "must be \(Self.kind(type))", isSyntax: false)
        case let .valueNotFound(type, context):
            self.init(field: Self.path(context.codingPath), problem: "must be \(Self.kind(type)), not null", isSyntax: false)
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty {
                self.init(field: nil, problem: "is not valid JSON", isSyntax: true)
            } else if context.debugDescription.contains("does not fit") {
                self.init(field: Self.path(context.codingPath), problem: "must be a whole number in range", isSyntax: false)
            } else {
                self.init(field: Self.path(context.codingPath), problem: "is not usable: \(context.debugDescription)", isSyntax: false)
            }
        @unknown default:
            self.init(field: nil, problem: "is not usable", isSyntax: false)
        }
    }

    /// `artists[0].followers` from a coding path; nil for the document itself.
    static func path(_ keys: [any CodingKey]) -> String? {
        var text = ""
        for key in keys {
            if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
                text += "[\(index)]"
            } else {
                text += (text.isEmpty ? "" : ".") + key.stringValue
            }
        }
        return text.isEmpty ? nil : text
    }

    /// A Swift type as the JSON it is decoded from.
    static func kind(_ type: Any.Type) -> String {
        let name = String(describing: type)
        if name.hasPrefix("Dictionary") || name.contains("KeyedDecodingContainer") { return "an object" }
        if name.hasPrefix("Array") || name.contains("UnkeyedDecodingContainer") { return "an array" }
        switch name {
        case "String", "Substring": return "a string"
        case "Bool": return "true or false"
        case "Double", "Float", "Decimal": return "a number"
        case "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64": return "a whole number"
        default: return "a JSON value of the right kind"
        }
    }
}
