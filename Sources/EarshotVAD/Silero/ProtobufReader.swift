/// A reader of the protobuf wire format (https://protobuf.dev/programming-guides/encoding/), just
/// enough of it to walk an ONNX model to its constant tensors: varints, fixed 32/64-bit values and
/// length-delimited fields. It never trusts a length: every field must end inside the bytes it was
/// given, or the reader throws ``Malformed``.
struct ProtobufReader {
    /// Why the bytes are not a valid protobuf message; `offset` is where reading stopped.
    struct Malformed: Error {
        var offset: Int
        var reason: String
    }

    /// One field as it appears on the wire.
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case fixed32(UInt32)
        /// A length-delimited field: a nested message, a string, bytes or a packed repeated field.
        case bytes(Range<Int>)
    }

    let bytes: UnsafeRawBufferPointer
    /// The next byte to read.
    private(set) var offset: Int
    private let end: Int

    /// Reads the message that occupies `range` of `bytes`.
    init(_ bytes: UnsafeRawBufferPointer, range: Range<Int>) {
        self.bytes = bytes
        offset = range.lowerBound
        end = range.upperBound
    }

    /// The next field's number and value, or `nil` at the end of the message.
    mutating func next() throws -> (field: UInt64, value: Value)? {
        guard offset < end else { return nil }
        let key = try varint()
        let field = key >> 3
        guard field > 0 else { throw Malformed(offset: offset, reason: "field number 0") }
        switch key & 7 {
        case 0: return (field, .varint(try varint()))
        case 1: return (field, .fixed64(try fixed(8)))
        case 5: return (field, .fixed32(UInt32(truncatingIfNeeded: try fixed(4))))
        case 2:
            let length = try varint()
            guard length <= UInt64(end - offset) else {
                throw Malformed(offset: offset, reason: "a field of \(length) bytes runs past the end of its message")
            }
            let start = offset
            offset += Int(length)
            return (field, .bytes(start..<offset))
        default:
            throw Malformed(offset: offset, reason: "wire type \(key & 7) (groups are not used by ONNX)")
        }
    }

    /// The bytes of a length-delimited field as a reader of its own.
    func message(_ range: Range<Int>) -> ProtobufReader { ProtobufReader(bytes, range: range) }

    /// A length-delimited field as UTF-8 text.
    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeRawBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < end else { throw Malformed(offset: offset, reason: "a varint runs past the end") }
            let byte = bytes[offset]
            offset += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
            guard shift < 64 else { throw Malformed(offset: offset, reason: "a varint longer than 10 bytes") }
        }
    }

    private mutating func fixed(_ size: Int) throws -> UInt64 {
        guard end - offset >= size else {
            throw Malformed(offset: offset, reason: "a \(size)-byte value runs past the end")
        }
        var result: UInt64 = 0
        for index in 0..<size { result |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        offset += size
        return result
    }
}

extension ProtobufReader {
    /// Every value of a repeated varint field, packed (one length-delimited run) or not.
    static func appendVarints(_ value: Value, reader: ProtobufReader, to values: inout [Int64]) throws {
        switch value {
        case .varint(let number): values.append(Int64(bitPattern: number))
        case .bytes(let range):
            var packed = reader.message(range)
            while packed.offset < range.upperBound { values.append(Int64(bitPattern: try packed.varint())) }
        default: throw Malformed(offset: reader.offset, reason: "an integer field with a non-integer wire type")
        }
    }
}
