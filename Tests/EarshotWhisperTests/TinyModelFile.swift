import EarshotCore

@testable import EarshotWhisper

/// A CTranslate2 `model.bin` written by the test, in the layout ``CTranslate2ModelFile`` reads: a
/// Whisper of toy size (width 8, 2 heads, one layer each side) with seeded weights, to check the reader
/// and the loader on files whose every byte is known, and to seed the fuzz target.
enum TinyModelFile {
    static let dimensions = WhisperDimensions(
        melBins: 4, audioContext: 6, width: 8, audioHeads: 2, textHeads: 2, audioLayers: 1, textLayers: 1,
        feedForwardWidth: 16, vocabularySize: 24, textContext: 8)

    /// The bytes of the file; `type` for every tensor (float16, as faster-whisper's models are, or
    /// float32; int8 for the weight matrices as CTranslate2's int8 files hold them, each with a float32
    /// `…_scale` per row, and float32 for the rest), `mutate` to change one variable's (name, shape)
    /// before it is written; `firstInt8` replaces every int8 matrix's first value.
    static func bytes(
        type: CTranslate2ModelFile.DataType = .float16, seed: UInt64 = 1, firstInt8: Int8? = nil,
        mutate: (inout String, inout [Int]) -> Void = { _, _ in }
    ) -> [UInt8] {
        var random = SplitMix64(seed: seed)
        var out: [UInt8] = []
        func u8(_ value: UInt8) { out.append(value) }
        func u16(_ value: UInt16) { out += [UInt8(value & 0xff), UInt8(value >> 8)] }
        func u32(_ value: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8((value >> UInt32(shift)) & 0xff)) }
        }
        func string(_ text: String) {
            let bytes = Array(text.utf8) + [0]
            u16(UInt16(bytes.count))
            out += bytes
        }
        let flags: [(String, CTranslate2ModelFile.DataType, [UInt8])] =
            WhisperDimensions.expectedFlags.map { ($0.name, .int8, [UInt8($0.value)]) } + [
                ("encoder/num_heads", .int16, [2, 0]), ("decoder/num_heads", .int16, [2, 0]),
            ]
        let tensors = dimensions.expectedTensors
        let scaled = type == .int8 ? tensors.filter { WhisperTensors.isMatrix($0.name) } : []
        u32(6)
        string("WhisperSpec")
        u32(3)
        u32(UInt32(tensors.count + scaled.count + flags.count))
        for (name, shape) in tensors {
            var (name, shape) = (name, shape)
            mutate(&name, &shape)
            let type = type == .int8 && !WhisperTensors.isMatrix(name) ? .float32 : type
            string(name)
            u8(UInt8(shape.count))
            for dimension in shape { u32(UInt32(dimension)) }
            u8(type.rawValue)
            let count = shape.reduce(1, *)
            u32(UInt32(count * type.size))
            for index in 0..<count {
                let value = Float(Double(random.next() >> 11) * 0x1p-53 - 0.5) * 0.4
                switch type {
                case .float16: u16(Float16(value).bitPattern)
                case .int8: u8(UInt8(bitPattern: index == 0 ? firstInt8 ?? Int8(value * 635) : Int8(value * 635)))
                default: u32(value.bitPattern)
                }
            }
        }
        for (name, shape) in scaled {
            string(name + "_scale")
            u8(1)
            u32(UInt32(shape[0]))
            u8(CTranslate2ModelFile.DataType.float32.rawValue)
            u32(UInt32(4 * shape[0]))
            for row in 0..<shape[0] { u32(Float(100 + 7 * row).bitPattern) }
        }
        for (name, type, value) in flags {
            string(name)
            u8(0)
            u8(type.rawValue)
            u32(UInt32(value.count))
            out += value
        }
        u32(1)
        string("decoder/projection/weight")
        string("decoder/embeddings/weight")
        return out
    }
}
