#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The float tensors an ONNX model holds as `Constant` nodes in one branch of its top-level `If` node,
/// read with ``ProtobufReader`` (field numbers from onnx/onnx.proto: ModelProto.graph 7;
/// GraphProto.node 1; NodeProto.output 2, op_type 4, attribute 5; AttributeProto.name 1, t 5, g 6;
/// TensorProto.dims 1, data_type 2, float_data 4, raw_data 9).
///
/// Silero VAD exports both rates into one graph, `If(sr == 16000)`, so the 16 kHz network is the
/// `then_branch` and its weights are the branch's constants, named after the PyTorch parameters.
struct ONNXConstants {
    /// One constant tensor: its shape, and its values when it holds 32-bit floats.
    struct Tensor {
        var dims: [Int64] = []
        /// ONNX's `TensorProto.DataType` (1 is FLOAT).
        var dataType: Int64 = 0
        var values: [Float] = []
    }

    /// The constants by the name of the node output that carries them.
    private(set) var tensors: [String: Tensor] = [:]

    /// Reads the constants of `branch` (`then_branch` or `else_branch`) of the first top-level `If`.
    /// Throws ``ProtobufReader/Malformed`` or a description of what is missing.
    init(bytes: UnsafeRawBufferPointer, branch: String) throws {
        var model = ProtobufReader(bytes, range: 0..<bytes.count)
        var graph: Range<Int>?
        while let (field, value) = try model.next() {
            if field == 7, case .bytes(let range) = value { graph = range }
        }
        guard let graph else { throw ProtobufReader.Malformed(offset: bytes.count, reason: "no graph") }
        guard let subgraph = try Self.branch(of: model.message(graph), named: branch) else {
            throw ProtobufReader.Malformed(offset: bytes.count, reason: "no top-level If node with a \(branch)")
        }
        var nodes = model.message(subgraph)
        while let (field, value) = try nodes.next() {
            guard field == 1, case .bytes(let range) = value else { continue }
            try readConstant(nodes.message(range))
        }
    }

    /// The whole file at `path`; throws a description when it cannot be read.
    static func contents(of path: String) throws -> [UInt8] {
        guard let file = fopen(path, "rb") else { throw ProtobufReader.Malformed(offset: 0, reason: "cannot open") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            bytes.append(contentsOf: chunk.prefix(count))
            if count < chunk.count { break }
        }
        if ferror(file) != 0 { throw ProtobufReader.Malformed(offset: bytes.count, reason: "read error") }
        return bytes
    }

    /// The subgraph held by attribute `name` of the first `If` node of `graph`.
    private static func branch(of graph: ProtobufReader, named name: String) throws -> Range<Int>? {
        var graph = graph
        while let (field, value) = try graph.next() {
            guard field == 1, case .bytes(let nodeRange) = value else { continue }
            var node = graph.message(nodeRange)
            var opType = ""
            var attributes: [Range<Int>] = []
            while let (field, value) = try node.next() {
                guard case .bytes(let range) = value else { continue }
                if field == 4 { opType = node.string(range) }
                if field == 5 { attributes.append(range) }
            }
            guard opType == "If" else { continue }
            for attributeRange in attributes {
                var attribute = graph.message(attributeRange)
                var attributeName = ""
                var subgraph: Range<Int>?
                while let (field, value) = try attribute.next() {
                    guard case .bytes(let range) = value else { continue }
                    if field == 1 { attributeName = attribute.string(range) }
                    if field == 6 { subgraph = range }
                }
                if attributeName == name, let subgraph { return subgraph }
            }
            return nil
        }
        return nil
    }

    /// Records the tensor of a `Constant` node (its `value` attribute), if `node` is one.
    private mutating func readConstant(_ node: ProtobufReader) throws {
        var node = node
        var opType = ""
        var output = ""
        var tensorRange: Range<Int>?
        while let (field, value) = try node.next() {
            guard case .bytes(let range) = value else { continue }
            switch field {
            case 2 where output.isEmpty: output = node.string(range)
            case 4: opType = node.string(range)
            case 5:
                var attribute = node.message(range)
                var name = ""
                var tensor: Range<Int>?
                while let (field, value) = try attribute.next() {
                    guard case .bytes(let range) = value else { continue }
                    if field == 1 { name = attribute.string(range) }
                    if field == 5 { tensor = range }
                }
                if name == "value" { tensorRange = tensor }
            default: break
            }
        }
        guard opType == "Constant", let tensorRange else { return }
        tensors[output] = try Self.tensor(node.message(tensorRange))
    }

    private static func tensor(_ reader: ProtobufReader) throws -> Tensor {
        var reader = reader
        var tensor = Tensor()
        var raw: Range<Int>?
        while let (field, value) = try reader.next() {
            switch (field, value) {
            case (1, _): try ProtobufReader.appendVarints(value, reader: reader, to: &tensor.dims)
            case (2, .varint(let type)): tensor.dataType = Int64(bitPattern: type)
            case (4, .fixed32(let bits)): tensor.values.append(Float(bitPattern: bits))
            case (4, .bytes(let range)): tensor.values += floats(reader.bytes, range)
            case (9, .bytes(let range)): raw = range
            default: break
            }
        }
        // raw_data is little-endian, as ONNX specifies, whatever the host.
        if let raw, tensor.dataType == 1 { tensor.values = floats(reader.bytes, raw) }
        return tensor
    }

    /// Little-endian 32-bit floats; a trailing partial value is dropped (the shape check then fails).
    private static func floats(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) -> [Float] {
        let count = range.count / 4
        guard count > 0 else { return [] }
        let source = bytes.baseAddress! + range.lowerBound
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            // A bulk copy: the bytes need not be aligned, and the host is little-endian like the file.
            UnsafeMutableRawPointer(buffer.baseAddress!).copyMemory(from: source, byteCount: count * 4)
            #if _endian(big)
                for index in 0..<count { buffer[index] = Float(bitPattern: UInt32(littleEndian: buffer[index].bitPattern)) }
            #endif
            initialized = count
        }
    }
}
