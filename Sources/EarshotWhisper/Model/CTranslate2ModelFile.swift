/// The named tensors of a CTranslate2 `model.bin`, read by Earshot's own code (format version 6, as
/// CTranslate2 4.x writes it, and as faster-whisper's model folders hold it).
///
/// The layout, all integers little-endian; a string is a `u16` byte length and that many bytes, the
/// last a NUL:
///
/// - `u32` format version, string spec name (`WhisperSpec`), `u32` spec revision, `u32` variable count;
/// - each variable: string name, `u8` rank, rank × `u32` dimensions, `u8` data type (``DataType``),
///   `u32` byte count, then the bytes, row-major;
/// - `u32` alias count and, per alias, string alias and string target (Whisper's output projection
///   is an alias of the token embedding).
///
/// Every length is checked against what remains of the file before it is used, and a variable's byte
/// count against its shape and type, so a truncated or corrupted file is refused with the offset of
/// the first thing that does not fit (``Malformed``), never read out of bounds. The values are not
/// read here: a ``Variable`` says where they are, and ``widen(_:into:rowScales:)`` or
/// ``copyHalves(_:into:)`` reads them straight into the tensor that keeps them (``ModelFileBytes``).
struct CTranslate2ModelFile {
    /// CTranslate2's data types, by the code the file stores.
    enum DataType: UInt8, CustomStringConvertible {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4, bfloat16 = 5

        var size: Int {
            switch self {
            case .int8: 1
            case .int16, .float16, .bfloat16: 2
            case .float32, .int32: 4
            }
        }

        var description: String {
            switch self {
            case .float32: "float32"
            case .int8: "int8"
            case .int16: "int16"
            case .int32: "int32"
            case .float16: "float16"
            case .bfloat16: "bfloat16"
            }
        }
    }

    /// One tensor: its shape, type, and where its bytes are in the file.
    struct Variable {
        let name: String
        let shape: [Int]
        let type: DataType
        let offset: Int
        let byteCount: Int

        var count: Int { shape.reduce(1, *) }
    }

    /// Why the bytes are not a model file, and where the reader stopped.
    struct Malformed: Error, Equatable {
        let reason: String
        let offset: Int
    }

    /// The only format version this reader knows.
    static let formatVersion: UInt32 = 6

    let specName: String
    let specRevision: Int
    /// The variables in file order.
    let variables: [Variable]
    /// The variables by name, aliases included (an alias maps to its target's variable).
    let byName: [String: Variable]
    let source: ModelFileBytes

    /// Reads the header and the variable table of `bytes`, which must outlive this value.
    init(bytes: UnsafeRawBufferPointer) throws(Malformed) { try self.init(source: .memory(bytes)) }

    /// Reads the header and the variable table of `source` (an open file must stay open while values
    /// are read).
    init(source: ModelFileBytes) throws(Malformed) {
        self.source = source
        var reader = Reader(source: source)
        let version = try reader.u32("the format version")
        guard version == Self.formatVersion else {
            throw Malformed(reason: "format version \(version), expected \(Self.formatVersion)", offset: 0)
        }
        specName = try reader.string("the spec name")
        specRevision = Int(try reader.u32("the spec revision"))
        let count = Int(try reader.u32("the variable count"))
        // Each variable takes at least 9 bytes (a 1-byte name, rank, type, byte count): a count the
        // rest of the file cannot hold is refused before anything is reserved for it.
        guard count <= reader.remaining / 9 else {
            throw Malformed(reason: "\(count) variables cannot fit in the \(reader.remaining) bytes left", offset: 0)
        }
        var variables: [Variable] = []
        variables.reserveCapacity(count)
        var byName: [String: Variable] = [:]
        for index in 0..<count {
            let start = reader.offset
            let name = try reader.string("the name of variable \(index)")
            let rank = Int(try reader.u8("the rank of \(name)"))
            guard rank <= 8 else {
                throw Malformed(reason: "\(name) has rank \(rank), expected at most 8", offset: start)
            }
            var shape: [Int] = []
            var elements = 1
            for _ in 0..<rank {
                let dimension = Int(try reader.u32("a dimension of \(name)"))
                let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
                guard !overflow else { throw Malformed(reason: "\(name)'s shape overflows", offset: start) }
                shape.append(dimension)
                elements = product
            }
            let code = try reader.u8("the data type of \(name)")
            guard let type = DataType(rawValue: code) else {
                throw Malformed(reason: "\(name) has data type code \(code), expected 0–5", offset: start)
            }
            let byteCount = Int(try reader.u32("the byte count of \(name)"))
            let (expectedBytes, tooMany) = elements.multipliedReportingOverflow(by: type.size)
            guard !tooMany, expectedBytes == byteCount else {
                // The message must not multiply again: a shape whose bytes overflow trapped here (found by fuzzing).
                let expected = tooMany ? "more than any file holds" : "\(expectedBytes)"
                throw Malformed(
                    reason: "\(name) \(shape) \(type) holds \(byteCount) bytes, expected \(expected)", offset: start)
            }
            let offset = try reader.skip(byteCount, "the values of \(name)")
            guard byName[name] == nil else { throw Malformed(reason: "\(name) appears twice", offset: start) }
            let variable = Variable(name: name, shape: shape, type: type, offset: offset, byteCount: byteCount)
            variables.append(variable)
            byName[name] = variable
        }
        let aliases = Int(try reader.u32("the alias count"))
        guard aliases <= reader.remaining / 4 else {
            throw Malformed(reason: "\(aliases) aliases cannot fit in the \(reader.remaining) bytes left", offset: 0)
        }
        for _ in 0..<aliases {
            let start = reader.offset
            let alias = try reader.string("an alias")
            let target = try reader.string("the target of \(alias)")
            guard let variable = byName[target] else {
                throw Malformed(reason: "alias \(alias) names \(target), which is not a variable", offset: start)
            }
            guard byName[alias] == nil else {
                throw Malformed(reason: "alias \(alias) is also a variable", offset: start)
            }
            byName[alias] = variable
        }
        guard reader.remaining == 0 else {
            throw Malformed(reason: "\(reader.remaining) bytes follow the aliases", offset: reader.offset)
        }
        self.variables = variables
        self.byName = byName
    }

    /// Writes the values of a floating-point or integer variable as `Float`s to `output` (float16 and
    /// bfloat16 widened exactly, integers converted, `scales` dividing each row when given); returns
    /// false if any value is not finite. A float32 variable is read straight into `output`; any other
    /// passes through one buffer of its own size.
    func widen(
        _ variable: Variable, into output: UnsafeMutablePointer<Float>, rowScales scales: [Float]? = nil
    ) throws(Malformed) -> Bool {
        let count = variable.count
        if variable.type == .float32 {
            try source.copy(from: variable.offset, count: variable.byteCount, into: output)
        } else {
            let stored = try source.bytes(from: variable.offset, count: variable.byteCount)
            stored.withUnsafeBytes { stored in
                switch variable.type {
                case .float32: break
                case .float16:
                    WhisperKernels.widenHalves(stored.baseAddress!, count: count, into: output)
                case .bfloat16:
                    let halves = stored.assumingMemoryBound(to: UInt16.self)
                    for i in 0..<count { output[i] = Float(bitPattern: UInt32(UInt16(littleEndian: halves[i])) << 16) }
                case .int8:
                    for i in 0..<count { output[i] = Float(Int8(bitPattern: stored[i])) }
                case .int16:
                    for i in 0..<count {
                        output[i] = Float(stored.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))
                    }
                case .int32:
                    for i in 0..<count {
                        output[i] = Float(stored.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self))
                    }
                }
            }
        }
        if let scales, !scales.isEmpty {
            let columns = count / scales.count
            for row in 0..<scales.count {
                let inverse = 1 / scales[row]
                for column in 0..<columns { output[row * columns + column] *= inverse }
            }
        }
        // Finite: the exponent bits are not all ones.
        let bits = UnsafeRawPointer(output).assumingMemoryBound(to: UInt32.self)
        var allFinite = true
        for i in 0..<count where bits[i] & 0x7f80_0000 == 0x7f80_0000 { allFinite = false }
        return allFinite
    }

    /// Copies a float16 variable's values as they are stored (little-endian IEEE halves, as on every
    /// machine this runs on); returns false if any is not finite (an all-ones exponent).
    func copyHalves(_ variable: Variable, into output: UnsafeMutablePointer<UInt16>) throws(Malformed) -> Bool {
        precondition(variable.type == .float16)
        try source.copy(from: variable.offset, count: variable.byteCount, into: output)
        var allFinite = true
        for i in 0..<variable.count where output[i] & 0x7c00 == 0x7c00 { allFinite = false }
        return allFinite
    }

    /// The values of a variable as `Float`s (see ``widen(_:into:rowScales:)``).
    func floats(_ variable: Variable) throws(Malformed) -> [Float] {
        var failure: Malformed?
        let values = [Float](unsafeUninitializedCapacity: variable.count) { buffer, initialized in
            do throws(Malformed) {
                _ = try widen(variable, into: buffer.baseAddress!)
                initialized = variable.count
            } catch {
                failure = error
                initialized = 0
            }
        }
        if let failure { throw failure }
        return values
    }

    /// A scalar's value as an integer (flags and counts: `num_heads`, `activation`), or nil if the
    /// variable is not a single integer.
    func integer(_ variable: Variable) throws(Malformed) -> Int? {
        guard variable.count == 1 else { return nil }
        let at = variable.offset
        switch variable.type {
        case .int8: return Int(try source.load(Int8.self, at: at))
        case .int16: return Int(try source.load(Int16.self, at: at))
        case .int32: return Int(try source.load(Int32.self, at: at))
        default: return nil
        }
    }
}

/// A bounds-checked little-endian reader over the file's bytes.
private struct Reader {
    let source: ModelFileBytes
    var offset = 0

    var remaining: Int { source.count - offset }

    mutating func take(_ count: Int, _ what: String) throws(CTranslate2ModelFile.Malformed) -> Int {
        guard count <= remaining else {
            throw CTranslate2ModelFile.Malformed(
                reason: "the file ends inside \(what) (\(count) bytes needed, \(remaining) left)", offset: offset)
        }
        defer { offset += count }
        return offset
    }

    mutating func u8(_ what: String) throws(CTranslate2ModelFile.Malformed) -> UInt8 {
        let at = try take(1, what)
        return try source.load(UInt8.self, at: at)
    }

    mutating func u32(_ what: String) throws(CTranslate2ModelFile.Malformed) -> UInt32 {
        let at = try take(4, what)
        return try source.load(UInt32.self, at: at)
    }

    mutating func skip(_ count: Int, _ what: String) throws(CTranslate2ModelFile.Malformed) -> Int {
        try take(count, what)
    }

    /// A `u16`-length string whose last byte is NUL, without the NUL; UTF-8 checked.
    mutating func string(_ what: String) throws(CTranslate2ModelFile.Malformed) -> String {
        let start = offset
        let lengthAt = try take(2, what)
        let length = Int(try source.load(UInt16.self, at: lengthAt))
        let at = try take(length, what)
        let stored = try source.bytes(from: at, count: length)
        guard length >= 1, stored[length - 1] == 0 else {
            throw CTranslate2ModelFile.Malformed(reason: "\(what) is not a NUL-terminated string", offset: start)
        }
        guard let text = String(validating: stored.dropLast(), as: UTF8.self), !text.contains("\0") else {
            throw CTranslate2ModelFile.Malformed(reason: "\(what) is not UTF-8 text", offset: start)
        }
        return text
    }
}
