import Foundation

/// Any JSON value, read and written through `Codable`: for documents checked field by field, where
/// every wrong field gets an error naming its path (a Realtime `session.update`), and documents built
/// from parts (the session object sent back). Whole numbers stay integers, so `24000` is written as
/// `24000`.
public enum JSONValue: Sendable, Equatable, Codable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByNilLiteral
{
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Parses one JSON document; nil if `text` is not JSON.
    public init?(parsing text: String) {
        guard let value = try? JSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) else { return nil }
        self = value
    }

    /// Compact JSON text, keys sorted, slashes unescaped. Every case is plain JSON (a non-finite number
    /// is written as null), so it cannot fail.
    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(finite)) ?? Data("null".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The value with any infinite or NaN number replaced by null (JSON has none).
    private var finite: JSONValue {
        switch self {
        case .number(let value) where !value.isFinite: .null
        case .array(let values): .array(values.map(\.finite))
        case .object(let fields): .object(fields.mapValues(\.finite))
        default: self
        }
    }

    public var isNull: Bool { self == .null }
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    public var object: [String: JSONValue]? { if case .object(let value) = self { value } else { nil } }
    /// An integer, or a number with no fraction that fits one (`24000.0`).
    public var integer: Int? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value.rounded() == value && abs(value) < 0x1p53: Int(value)
        default: nil
        }
    }
    /// Any number.
    public var double: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// A field of an object (nil for a missing field, or when this is not an object).
    public subscript(key: String) -> JSONValue? { object?[key] }

    /// The value as an error message shows it: a string quoted, anything else as JSON, at most 80
    /// characters.
    public var shown: String {
        if let string { return "\"\(string.prefix(80))\"" }
        return String(text.prefix(80))
    }

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue {
    /// A string, or null for nil.
    public init(_ value: String?) { self = value.map { .string($0) } ?? .null }
}
