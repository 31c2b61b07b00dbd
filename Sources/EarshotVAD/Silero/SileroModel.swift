import EarshotCore

/// The weights of Silero VAD v6's 16 kHz network, read from the `silero_vad.onnx` that the PyPI package
/// `silero-vad` (MIT licence, https://github.com/snakers4/silero-vad) ships. Weights are never part of
/// Earshot: `make models` or `earshot models fetch` unpacks the package's wheel into a model folder (see
/// ``SileroModel/locate(explicitPath:environment:places:)``).
///
/// The file is read with Earshot's own protobuf reader; the 16 kHz network is the `then_branch` of the
/// graph's top-level `If (sr == 16000)`, whose 15 float `Constant` nodes are the PyTorch parameters
/// below. Every tensor's name, type and shape is checked, so a wrong, truncated or corrupted file fails
/// here with one ``EarshotError/Code/modelUnavailable`` error naming the file and what was expected.
///
/// Immutable once loaded, so one model is shared by every ``SileroDetector`` (each holds its own
/// state and scratch): load it once per process.
public final class SileroModel: @unchecked Sendable {  // immutable after init: storage is never written again
    /// Environment variable that names the model file, overriding the default search.
    public static let environmentVariable = "EARSHOT_VAD_MODEL"
    /// The file's path inside a model folder (``ModelSearch``).
    public static let relativePath = ModelCatalogue.sileroVAD.markerPath
    /// One line telling a user how to get the model.
    public static let installHint =
        "run `earshot models fetch` (it unpacks silero_vad.onnx from the PyPI package silero-vad; `make models` "
        + "does the same in a checkout), or pass --vad-model PATH / set \(environmentVariable)"

    /// The file the weights were read from.
    public let path: String

    /// A matrix of `rows` × `columns` floats, row-major, with one bias per row (if any).
    struct Matrix {
        let weights: UnsafePointer<Float>
        let bias: UnsafePointer<Float>?
        let rows: Int
        let columns: Int
    }

    /// The STFT as a convolution: 258 filters of 256 samples (129 real parts, then 129 imaginary).
    let stft: Matrix
    /// The four encoder convolutions, each `[out][in·3]` (kernel 3, the layout PyTorch and ONNX share).
    let encoder: [Matrix]
    /// The LSTM cell: `[512][256]`, each row `weight_ih` then `weight_hh`; gates i, f, g, o (PyTorch's
    /// order); bias `bias_ih + bias_hh`.
    let lstm: Matrix
    /// The 1×1 output convolution: 128 weights and one bias.
    let decoder: Matrix

    private let storage: UnsafeMutablePointer<Float>

    /// The parameters of the 16 kHz branch with the shapes the architecture needs, in the order the
    /// network uses them.
    static let expectedTensors: [(name: String, dims: [Int64])] = [
        ("stft.forward_basis_buffer", [258, 1, 256]),
        ("encoder.0.reparam_conv.weight", [128, 129, 3]), ("encoder.0.reparam_conv.bias", [128]),
        ("encoder.1.reparam_conv.weight", [64, 128, 3]), ("encoder.1.reparam_conv.bias", [64]),
        ("encoder.2.reparam_conv.weight", [64, 64, 3]), ("encoder.2.reparam_conv.bias", [64]),
        ("encoder.3.reparam_conv.weight", [128, 64, 3]), ("encoder.3.reparam_conv.bias", [128]),
        ("decoder.rnn.weight_ih", [512, 128]), ("decoder.rnn.weight_hh", [512, 128]),
        ("decoder.rnn.bias_ih", [512]), ("decoder.rnn.bias_hh", [512]),
        ("decoder.decoder.2.weight", [1, 128, 1]), ("decoder.decoder.2.bias", [1]),
    ]

    /// Loads and checks the model at `path`.
    public init(path: String) throws {
        self.path = path
        func failure(_ expected: String) -> EarshotError {
            EarshotError(.modelUnavailable, "silero VAD model \(path): \(expected)")
        }
        let bytes: [UInt8]
        do { bytes = try ONNXConstants.contents(of: path) } catch {
            throw failure("cannot read the file; \(Self.installHint)")
        }
        let constants: ONNXConstants
        do {
            constants = try bytes.withUnsafeBytes { try ONNXConstants(bytes: $0, branch: "then_branch") }
        } catch let malformed as ProtobufReader.Malformed {
            throw failure(
                "expected an ONNX model (protobuf) with Silero VAD's 16 kHz branch; \(malformed.reason) at byte "
                    + "\(malformed.offset) of \(bytes.count) (truncated or corrupted?)")
        }
        var tensors: [[Float]] = []
        for (name, dims) in Self.expectedTensors {
            let found = constants.tensors.first { $0.key == name || $0.key.hasSuffix("__" + name) }?.value
            guard let tensor = found else {
                throw failure(
                    "expected a float constant \(name) \(dims) in the 16 kHz branch; not found (not Silero VAD v6?)")
            }
            let count = Int(dims.reduce(1, *))
            guard tensor.dataType == 1, tensor.dims == dims, tensor.values.count == count else {
                throw failure(
                    "expected \(name) as float32 \(dims) (\(count) values); got data type \(tensor.dataType), "
                        + "shape \(tensor.dims), \(tensor.values.count) values")
            }
            guard tensor.values.allSatisfy(\.isFinite) else {
                throw failure("expected finite values in \(name); it holds NaN or infinity (corrupted?)")
            }
            tensors.append(tensor.values)
        }
        storage = Self.pack(tensors)
        var next = UnsafePointer(storage)
        func take(_ count: Int) -> UnsafePointer<Float> {
            defer { next += count }
            return next
        }
        stft = Matrix(weights: take(258 * 256), bias: nil, rows: 258, columns: 256)
        encoder = [(128, 129), (64, 128), (64, 64), (128, 64)].map { rows, inputs in
            let weights = take(rows * inputs * 3)
            return Matrix(weights: weights, bias: take(rows), rows: rows, columns: inputs * 3)
        }
        let lstmWeights = take(512 * 256)
        lstm = Matrix(weights: lstmWeights, bias: take(512), rows: 512, columns: 256)
        let decoderWeights = take(128)
        decoder = Matrix(weights: decoderWeights, bias: take(1), rows: 1, columns: 128)
    }

    deinit { storage.deallocate() }

    /// One contiguous buffer in the order of the stored properties; the LSTM's two matrices are
    /// interleaved row by row (`[x; h]` is then one input) and its two biases summed.
    private static func pack(_ tensors: [[Float]]) -> UnsafeMutablePointer<Float> {
        var packed: [Float] = []
        packed += tensors[0]
        for layer in 0..<4 { packed += tensors[1 + 2 * layer] + tensors[2 + 2 * layer] }
        let (inputWeights, hiddenWeights) = (tensors[9], tensors[10])
        for row in 0..<512 {
            packed += inputWeights[(row * 128)..<(row * 128 + 128)]
            packed += hiddenWeights[(row * 128)..<(row * 128 + 128)]
        }
        packed += zip(tensors[11], tensors[12]).map { $0 + $1 }
        packed += tensors[13] + tensors[14]
        let storage = UnsafeMutablePointer<Float>.allocate(capacity: packed.count)
        storage.initialize(from: packed, count: packed.count)
        return storage
    }
}
