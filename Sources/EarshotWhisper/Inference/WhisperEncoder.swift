import EarshotCore

/// Whisper's audio encoder (openai/whisper's `AudioEncoder`): two kernel-3 convolutions with GELU (the
/// second of stride 2, so 3 000 mel frames become 1 500 positions), learned positions added, then pre-norm
/// transformer blocks (self-attention, GELU feed-forward) and a final layer norm.
///
/// Holds the buffers of one encoding (about 33 MB for tiny); the weights are the shared model's. Not
/// thread-safe: one per recognizer. Public for benchmarks and for code that runs the network itself;
/// ``WhisperTranscriber`` is the way to transcribe.
public final class WhisperEncoder {
    public let model: WhisperModel
    /// `positions × width`: the last ``encode(_:contentFrames:positions:isCancelled:)``'s output.
    public let output: UnsafeMutablePointer<Float>
    /// The positions of the last encoding: `audioContext` for a full window, fewer for a fitted one
    /// (``WhisperEncoderWindow``).
    public private(set) var positions: Int
    private let normed: UnsafeMutablePointer<Float>
    private let queryKeyValue: UnsafeMutablePointer<Float>
    private let scores: UnsafeMutablePointer<Float>
    private let attended: UnsafeMutablePointer<Float>
    private let hidden: UnsafeMutablePointer<Float>

    /// Queries whose attention is computed together: 100 rows of 1 500 scores are 600 kB.
    static let queryBlock = 100

    /// Mel frames the encoder takes: twice its positions (3 000, 30 s).
    public var inputFrames: Int { 2 * model.dimensions.audioContext }

    /// The first convolution's output on a row of padding (GELU of its bias), then the second's on three
    /// such rows.
    private let paddingRows: UnsafeMutablePointer<Float>

    public init(model: WhisperModel) {
        _ = WhisperKernels.singleThreaded
        self.model = model
        let dimensions = model.dimensions
        let (positions, width) = (dimensions.audioContext, dimensions.width)
        self.positions = positions
        paddingRows = .allocate(capacity: 2 * width)
        let weights = model.weights
        paddingRows.update(from: weights.convolution1.bias, count: width)
        WhisperKernels.gelu(paddingRows, count: width)
        let unfolded = UnsafeMutablePointer<Float>.allocate(capacity: 3 * width)
        defer { unfolded.deallocate() }
        for channel in 0..<width { for k in 0..<3 { unfolded[channel * 3 + k] = paddingRows[channel] } }
        WhisperKernels.linear(unfolded, rows: 1, weights.convolution2, into: paddingRows + width)
        WhisperKernels.gelu(paddingRows + width, count: width)
        output = .allocate(capacity: positions * width)
        normed = .allocate(capacity: positions * width)
        attended = .allocate(capacity: positions * width)
        // Also the second convolution's unfolded input (positions × 3·width).
        queryKeyValue = .allocate(capacity: positions * 3 * width)
        // Also the first convolution's output (2·positions × width).
        scores = .allocate(capacity: max(positions * positions, 2 * positions * width))
        // Also the first convolution's unfolded input (2·positions × 3·mels).
        hidden = .allocate(capacity: max(positions * dimensions.feedForwardWidth, 2 * positions * 3 * dimensions.melBins))
    }

    deinit {
        for buffer in [output, normed, queryKeyValue, scores, attended, hidden, paddingRows] { buffer.deallocate() }
    }

    /// Encodes `mel`, `2 · positions × melBins` time-major; the result is in ``output``. `positions` (at
    /// most, and by default, the model's `audioContext`) shortens the window: the convolutions run over
    /// `2 · positions` frames, the learned positions are sliced to that length and self-attention spans
    /// only them (whisper.cpp's `audio_ctx`). `isCancelled`
    /// is asked before each layer (a tenth of a second of work on one core for tiny); returns false,
    /// with ``output`` unfinished, when it says so.
    ///
    /// Not `throws`: in the optimized build (Swift 6.3.1) this function, throwing, returned to its
    /// callers with a non-null error register and no error thrown; see ``WhisperKernels``.
    ///
    /// `contentFrames`: the frames that hold audio, those after being zeros (the window's padding). The
    /// convolutions of rows that see only padding are all alike — GELU(bias) after the first, a row
    /// computed once per model after the second — and are copied rather than computed: for a 5 s
    /// utterance, five sixths of the convolutions' work.
    @discardableResult
    public func encode(
        _ mel: UnsafePointer<Float>, contentFrames: Int? = nil, positions: Int? = nil, isCancelled: () -> Bool = { false }
    ) -> Bool {
        let dimensions = model.dimensions
        let weights = model.weights
        let positions = min(max(positions ?? dimensions.audioContext, 1), dimensions.audioContext)
        self.positions = positions
        let (width, mels) = (dimensions.width, dimensions.melBins)
        let frames = 2 * positions
        let content = min(max(contentFrames ?? frames, 0), frames)

        // Convolution 1: unfold (column [c·3 + k] of frame t is mel[t + k − 1][c]), multiply, GELU. Rows
        // from content + 1 on see only zeros.
        let computed1 = min(frames, content + 1)
        unfold(mel, channels: mels, length: frames, stride: 1, outputLength: computed1, into: hidden)
        let convolved = scores
        WhisperKernels.linear(hidden, rows: computed1, weights.convolution1, into: convolved)
        WhisperKernels.gelu(convolved, count: computed1 * width)
        for row in computed1..<frames { (convolved + row * width).update(from: paddingRows, count: width) }
        // Convolution 2, stride 2: output u reads rows 2u − 1 … 2u + 1, all padding from u = computed1 / 2 + 1.
        let computed2 = min(positions, computed1 / 2 + 1)
        unfold(convolved, channels: width, length: frames, stride: 2, outputLength: computed2, into: queryKeyValue)
        WhisperKernels.linear(queryKeyValue, rows: computed2, weights.convolution2, into: output)
        WhisperKernels.gelu(output, count: computed2 * width)
        for row in computed2..<positions { (output + row * width).update(from: paddingRows + width, count: width) }
        WhisperKernels.add(weights.encoderPositions, to: output, count: positions * width)

        let heads = dimensions.audioHeads
        let headWidth = width / heads
        let scale = 1 / Float(headWidth).squareRoot()
        for layer in weights.encoderLayers {
            if isCancelled() { return false }
            WhisperKernels.layerNorm(output, rows: positions, width: width, layer.attentionNorm, into: normed)
            WhisperKernels.linear(normed, rows: positions, layer.queryKeyValue, into: queryKeyValue)
            for head in 0..<heads {
                let keys = queryKeyValue + width + head * headWidth
                let values = keys + width
                // A block of queries at a time, so its scores stay in cache between the products
                // and the softmax (all 1 500 rows would be 9 MB).
                var first = 0
                while first < positions {
                    let rows = min(Self.queryBlock, positions - first)
                    let queries = queryKeyValue + first * 3 * width + head * headWidth
                    WhisperKernels.multiplyTransposed(
                        queries, aStride: 3 * width, keys, bStride: 3 * width, into: scores, cStride: positions,
                        rows: rows, columns: positions, depth: headWidth, alpha: scale)
                    WhisperKernels.softmax(scores, rows: rows, width: positions, stride: positions)
                    WhisperKernels.multiply(
                        scores, aStride: positions, values, bStride: 3 * width,
                        into: attended + first * width + head * headWidth, cStride: width, rows: rows,
                        columns: headWidth, depth: positions)
                    first += rows
                }
            }
            WhisperKernels.linear(attended, rows: positions, layer.attentionOutput, into: normed)
            WhisperKernels.add(normed, to: output, count: positions * width)

            let feedForward = layer.feedForward
            WhisperKernels.layerNorm(output, rows: positions, width: width, feedForward.norm, into: normed)
            WhisperKernels.linear(normed, rows: positions, feedForward.expand, into: hidden)
            WhisperKernels.gelu(hidden, count: positions * dimensions.feedForwardWidth)
            WhisperKernels.linear(hidden, rows: positions, feedForward.contract, into: normed)
            WhisperKernels.add(normed, to: output, count: positions * width)
        }
        WhisperKernels.layerNorm(output, rows: positions, width: width, weights.encoderNorm, into: normed)
        output.update(from: normed, count: positions * width)
        return true
    }

    /// Unfolds a time-major `length × channels` map for a kernel-3, padding-1 convolution: row `t` of
    /// the result is `[c·3 + k] = input[t·stride + k − 1][c]` (0 outside), the weights' layout.
    private func unfold(
        _ input: UnsafePointer<Float>, channels: Int, length: Int, stride: Int, outputLength: Int,
        into columns: UnsafeMutablePointer<Float>
    ) {
        let rowLength = channels * 3
        for t in 0..<outputLength {
            let row = columns + t * rowLength
            for k in 0..<3 {
                let position = t * stride + k - 1
                if position >= 0 && position < length {
                    let source = input + position * channels
                    for channel in 0..<channels { row[channel * 3 + k] = source[channel] }
                } else {
                    for channel in 0..<channels { row[channel * 3 + k] = 0 }
                }
            }
        }
    }
}
