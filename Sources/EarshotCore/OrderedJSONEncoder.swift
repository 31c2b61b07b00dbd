public import Foundation

/// Writes an `Encodable` value as compact JSON whose object keys come in the order the value encodes
/// them (for a synthesized `encode(to:)`, the order its stored properties are declared in), so a
/// document's bytes are the same from run to run: manifests that rebuild byte-identically, the Speech
/// API's response in the seed's field order, one `--progress ndjson` line after another.
/// (`JSONEncoder` orders keys by hash, which Swift seeds per process, unless told to sort them.)
///
/// Numbers: an integral `Double` up to 2⁵³ without a fraction (`7`, as `JSONEncoder` writes it), any
/// other in the shortest form that reads back to the same value (`2.125`, `1e-05`); a NaN or an infinity
/// is an `EncodingError`. Strings escape quotes, backslashes and control characters (RFC 8259) and keep
/// everything else, `/` included. `nil` optionals are left out by a synthesized `encode(to:)` (its
/// `encodeIfPresent`); `encodeNil` writes `null`. `Data` and `Date` encode as their own `Encodable`
/// says (bytes as an array of numbers, seconds since 2001), not as `JSONEncoder`'s strategies would.
public struct OrderedJSONEncoder: Sendable {
    public init() {}

    public func encode<T: Encodable>(_ value: T) throws -> Data { Data(try string(value).utf8) }

    /// The document as text.
    public func string<T: Encodable>(_ value: T) throws -> String {
        let root = JSONNode()
        try root.store(value, codingPath: [])
        var out = ""
        root.write(to: &out)
        return out
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String {
        var out = ""
        JSONNode.writeString(text, to: &out)
        return out
    }
}

/// One value of the document being built: a literal, or an object or array whose members are filled
/// in as the encoder's containers write them (a class, so a nested container writes into its parent).
final class JSONNode {
    private enum Content {
        case empty
        case literal(String)
        case object([(key: String, node: JSONNode)])
        case array([JSONNode])
    }

    private var content = Content.empty

    /// Stores `value`: a number, string or Boolean as a literal, anything else through its `encode(to:)`.
    func store<T: Encodable>(_ value: T, codingPath: [any CodingKey]) throws {
        // By the static type, so that no bridging reads a number as a Boolean or the reverse.
        switch T.self {
        case is String.Type: content = .literal(OrderedJSONEncoder.quoted(value as! String))
        case is Bool.Type: content = .literal(value as! Bool ? "true" : "false")
        case is Double.Type: content = .literal(try Self.number(value as! Double, codingPath: codingPath))
        case is Float.Type: content = .literal(try Self.number(value as! Float, codingPath: codingPath))
        case is any BinaryInteger.Type: content = .literal("\(value)")
        default: try value.encode(to: NodeEncoder(node: self, codingPath: codingPath))
        }
    }

    func storeNull() { content = .literal("null") }

    /// Makes this node an object (keeping the members of one already begun) and returns a new member.
    func member(_ key: String) -> JSONNode {
        var members: [(key: String, node: JSONNode)] = []
        if case .object(let existing) = content { members = existing }
        let node = JSONNode()
        // A key encoded twice keeps its first place and its last value.
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].node = node
        } else {
            members.append((key, node))
        }
        content = .object(members)
        return node
    }

    func beginObject() { if case .object = content {} else { content = .object([]) } }

    func beginArray() { if case .array = content {} else { content = .array([]) } }

    /// Makes this node an array (keeping the items of one already begun) and returns a new last item.
    func item() -> JSONNode {
        var items: [JSONNode] = []
        if case .array(let existing) = content { items = existing }
        let node = JSONNode()
        items.append(node)
        content = .array(items)
        return node
    }

    var itemCount: Int { if case .array(let items) = content { items.count } else { 0 } }

    func write(to out: inout String) {
        switch content {
        // A value that encoded nothing at all is an empty object, as with JSONEncoder.
        case .empty: out += "{}"
        case .literal(let text): out += text
        case .object(let members):
            out += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { out += "," }
                Self.writeString(member.key, to: &out)
                out += ":"
                member.node.write(to: &out)
            }
            out += "}"
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        }
    }

    static func writeString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }

    private static func number<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: F, codingPath: [any CodingKey]
    ) throws -> String {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
        }
        if value == value.rounded(), value.magnitude <= 0x1p53 { return String(Int64(value)) }
        return value.description
    }
}

/// The `Encoder` a non-literal value encodes itself through, writing into one node.
private struct NodeEncoder: Encoder {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.beginArray()
        return UnkeyedNodeContainer(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(node: node, codingPath: codingPath)
    }
}

private struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.member(key.stringValue).storeNull() }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    // The primitive overloads come here rather than to the generic `encode`, which would pick them again.
    private func put<T: Encodable>(_ value: T, _ key: Key) throws {
        try node.member(key.stringValue).store(value, codingPath: codingPath + [key])
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = node.member(key.stringValue)
        child.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = node.member(key.stringValue)
        child.beginArray()
        return UnkeyedNodeContainer(node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        NodeEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]
    var count: Int { node.itemCount }

    private var nextPath: [any CodingKey] { codingPath + [IndexKey(intValue: count)] }

    mutating func encodeNil() throws { node.item().storeNull() }

    mutating func encode<T: Encodable>(_ value: T) throws { try put(value) }

    private func put<T: Encodable>(_ value: T) throws {
        let path = nextPath
        try node.item().store(value, codingPath: path)
    }

    mutating func encode(_ value: Bool) throws { try put(value) }
    mutating func encode(_ value: String) throws { try put(value) }
    mutating func encode(_ value: Double) throws { try put(value) }
    mutating func encode(_ value: Float) throws { try put(value) }
    mutating func encode(_ value: Int) throws { try put(value) }
    mutating func encode(_ value: Int8) throws { try put(value) }
    mutating func encode(_ value: Int16) throws { try put(value) }
    mutating func encode(_ value: Int32) throws { try put(value) }
    mutating func encode(_ value: Int64) throws { try put(value) }
    mutating func encode(_ value: UInt) throws { try put(value) }
    mutating func encode(_ value: UInt8) throws { try put(value) }
    mutating func encode(_ value: UInt16) throws { try put(value) }
    mutating func encode(_ value: UInt32) throws { try put(value) }
    mutating func encode(_ value: UInt64) throws { try put(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = node.item()
        child.beginObject()
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = node.item()
        child.beginArray()
        return UnkeyedNodeContainer(node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let path = nextPath
        return NodeEncoder(node: node.item(), codingPath: path)
    }
}

private struct SingleNodeContainer: SingleValueEncodingContainer {
    let node: JSONNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.storeNull() }
    mutating func encode<T: Encodable>(_ value: T) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Bool) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: String) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Double) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Float) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int8) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int16) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int32) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: Int64) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt8) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt16) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt32) throws { try node.store(value, codingPath: codingPath) }
    mutating func encode(_ value: UInt64) throws { try node.store(value, codingPath: codingPath) }
}

/// A key named at run time: a document whose keys are data (a corpus's tags, a progress event's fields).
public struct NamedCodingKey: CodingKey, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}

private struct IndexKey: CodingKey {
    var stringValue: String { "Index \(intValue!)" }
    var intValue: Int?
    init(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}
