import COpenBLAS

/// Whisper's text decoder (openai/whisper's `TextDecoder`) run incrementally: token embeddings plus
/// learned positions, pre-norm blocks of causal self-attention, cross-attention to the encoder output
/// and a GELU feed-forward, a final layer norm, and logits from the tied token embedding.
///
/// It decodes several hypotheses side by side (a beam, or samples), each with its own self-attention
/// cache of keys and values; the cross-attention keys and values are computed once per encoding and
/// shared by all of them. ``reorder(_:)`` makes the hypotheses continue from chosen parents (beam
/// search), copying their caches. All buffers are allocated once, for ``capacity`` hypotheses and the
/// model's full text context, so a decoding step allocates nothing. Public for benchmarks and for code
/// that runs the network itself; ``WhisperTranscriber`` is the way to transcribe.
public final class WhisperDecoder {
    public let model: WhisperModel
    /// How many hypotheses can decode side by side.
    public let capacity: Int
    /// Tokens decoded so far (the same for every hypothesis): the next token's position.
    public private(set) var length = 0
    /// Hypotheses in the current batch.
    public private(set) var count = 0

    private let width: Int
    /// Encoder positions of the encoding begun (``begin(encoderOutput:positions:)``): the model's
    /// `audioContext`, or fewer for a fitted window.
    public private(set) var positions: Int
    /// Per layer: `audioContext × 2·width` (the first `positions` rows used), keys then values of each
    /// encoder position.
    private let crossKeyValues: UnsafeMutablePointer<Float>
    /// Per hypothesis, per layer: `textContext × 2·width`, keys then values of each token so far; a
    /// second set to copy into on ``reorder(_:)``.
    private var cache: UnsafeMutablePointer<Float>
    private var spare: UnsafeMutablePointer<Float>
    private let cacheStride: Int
    // Scratch, for up to `capacity × textContext` rows.
    private let x: UnsafeMutablePointer<Float>
    private let normed: UnsafeMutablePointer<Float>
    private let projected: UnsafeMutablePointer<Float>
    private let attended: UnsafeMutablePointer<Float>
    private let hidden: UnsafeMutablePointer<Float>
    private let scores: UnsafeMutablePointer<Float>
    /// Logits of the rows asked for in the last ``run(tokens:perHypothesis:logitRows:)``, `rows × vocabulary`.
    public let logits: UnsafeMutablePointer<Float>
    private let logitCapacity: Int

    /// Cross-attention scores of the alignment heads (scaled, before the softmax), recorded when
    /// asked: per head (in the model's order), `rows × positions` for the rows of the last run.
    private(set) var recordedAttention: [[Float]] = []

    public init(model: WhisperModel, capacity: Int) {
        _ = WhisperKernels.singleThreaded
        self.model = model
        self.capacity = capacity
        let dimensions = model.dimensions
        width = dimensions.width
        positions = dimensions.audioContext
        let layers = dimensions.textLayers
        let rows = capacity * dimensions.textContext
        crossKeyValues = .allocate(capacity: layers * positions * 2 * width)
        cacheStride = layers * dimensions.textContext * 2 * width
        cache = .allocate(capacity: capacity * cacheStride)
        spare = .allocate(capacity: capacity * cacheStride)
        x = .allocate(capacity: rows * width)
        normed = .allocate(capacity: rows * width)
        projected = .allocate(capacity: rows * 3 * width)
        attended = .allocate(capacity: rows * width)
        hidden = .allocate(capacity: rows * dimensions.feedForwardWidth)
        scores = .allocate(capacity: dimensions.textContext * max(positions, dimensions.textContext))
        logitCapacity = max(capacity, 2)
        logits = .allocate(capacity: logitCapacity * dimensions.vocabularySize)
    }

    deinit {
        for buffer in [crossKeyValues, cache, spare, x, normed, projected, attended, hidden, scores, logits] {
            buffer.deallocate()
        }
    }

    /// Computes the cross-attention keys and values of an encoder output (`positions × width`, the
    /// model's `audioContext` by default) and empties the hypotheses.
    public func begin(encoderOutput: UnsafePointer<Float>, positions: Int? = nil) {
        let context = model.dimensions.audioContext
        self.positions = min(max(positions ?? context, 1), context)
        for (index, layer) in model.weights.decoderLayers.enumerated() {
            WhisperKernels.linear(
                encoderOutput, rows: self.positions, layer.crossKeyValue,
                into: crossKeyValues + index * self.positions * 2 * width)
        }
        length = 0
        count = 0
    }

    /// Runs `tokens`: `perHypothesis` new tokens for each hypothesis, hypothesis after hypothesis
    /// (`tokens.count / perHypothesis` of them: the batch, which must equal the current one once begun),
    /// at positions `length ..< length + perHypothesis`. Leaves in ``logits`` the logits of each row
    /// of `logitRows` (indices into `tokens`). With `recordAlignment`, records the alignment heads'
    /// cross-attention weights of every row in ``recordedAttention``.
    public func run(tokens: [Int], perHypothesis: Int, logitRows: [Int], recordAlignment: Bool = false) {
        let dimensions = model.dimensions
        let weights = model.weights
        let hypotheses = tokens.count / perHypothesis
        precondition(hypotheses <= capacity && logitRows.count <= logitCapacity)
        precondition(length + perHypothesis <= dimensions.textContext, "beyond the decoder's text context")
        precondition(count == 0 || hypotheses == count, "the batch changes only through reorder")
        count = hypotheses
        let rows = tokens.count
        let (w, heads) = (width, dimensions.textHeads)
        let headWidth = w / heads
        let scale = 1 / Float(headWidth).squareRoot()
        let context = dimensions.textContext
        let total = length + perHypothesis  // keys each query may attend to, at most

        for (row, token) in tokens.enumerated() {
            let position = length + row % perHypothesis
            let target = x + row * w
            switch weights.tokenEmbedding {
            case .float(let embedding): target.update(from: embedding + token * w, count: w)
            case .half(let embedding): WhisperKernels.widenHalves(embedding + token * w, count: w, into: target)
            case .int8(let embedding, let steps):
                WhisperKernels.widenInt8(embedding + token * w, count: w, step: steps[token], into: target)
            }
            WhisperKernels.add(weights.decoderPositions + position * w, to: target, count: w)
        }
        if recordAlignment {
            recordedAttention = model.alignmentHeads.map { _ in [Float](repeating: 0, count: rows * positions) }
        }

        for (index, layer) in weights.decoderLayers.enumerated() {
            // Causal self-attention, keys and values appended to each hypothesis's cache.
            WhisperKernels.layerNorm(x, rows: rows, width: w, layer.selfAttentionNorm, into: normed)
            WhisperKernels.linear(normed, rows: rows, layer.selfQueryKeyValue, into: projected)
            for hypothesis in 0..<hypotheses {
                let keys = cache + hypothesis * cacheStride + index * context * 2 * w
                let values = keys + context * w
                for step in 0..<perHypothesis {
                    let row = projected + (hypothesis * perHypothesis + step) * 3 * w
                    (keys + (length + step) * w).update(from: row + w, count: w)
                    (values + (length + step) * w).update(from: row + 2 * w, count: w)
                }
                for head in 0..<heads {
                    let queries = projected + hypothesis * perHypothesis * 3 * w + head * headWidth
                    WhisperKernels.multiplyTransposed(
                        queries, aStride: 3 * w, keys + head * headWidth, bStride: w, into: scores, cStride: total,
                        rows: perHypothesis, columns: total, depth: headWidth, alpha: scale)
                    for step in 0..<perHypothesis {
                        // Query `step` sees the keys up to its own position.
                        let visible = length + step + 1
                        let row = scores + step * total
                        WhisperKernels.softmax(row, rows: 1, width: visible, stride: total)
                        for masked in visible..<total { row[masked] = 0 }
                    }
                    WhisperKernels.multiply(
                        scores, aStride: total, values + head * headWidth, bStride: w,
                        into: attended + hypothesis * perHypothesis * w + head * headWidth, cStride: w,
                        rows: perHypothesis, columns: headWidth, depth: total)
                }
            }
            WhisperKernels.linear(attended, rows: rows, layer.selfAttentionOutput, into: normed)
            WhisperKernels.add(normed, to: x, count: rows * w)

            // Cross-attention to the encoder output, shared by every hypothesis.
            WhisperKernels.layerNorm(x, rows: rows, width: w, layer.crossAttentionNorm, into: normed)
            WhisperKernels.linear(normed, rows: rows, layer.crossQuery, into: projected)
            let crossKeys = crossKeyValues + index * positions * 2 * w
            for head in 0..<heads {
                let recorded =
                    recordAlignment ? model.alignmentHeads.firstIndex(of: .init(layer: index, head: head)) : nil
                // At most `textContext` rows at a time fit the scores buffer.
                var first = 0
                while first < rows {
                    let block = min(context, rows - first)
                    WhisperKernels.multiplyTransposed(
                        projected + first * w + head * headWidth, aStride: w, crossKeys + head * headWidth,
                        bStride: 2 * w, into: scores, cStride: positions, rows: block, columns: positions,
                        depth: headWidth, alpha: scale)
                    if let recorded {
                        recordedAttention[recorded].withUnsafeMutableBufferPointer {
                            ($0.baseAddress! + first * positions).update(from: scores, count: block * positions)
                        }
                    }
                    WhisperKernels.softmax(scores, rows: block, width: positions, stride: positions)
                    WhisperKernels.multiply(
                        scores, aStride: positions, crossKeys + w + head * headWidth, bStride: 2 * w,
                        into: attended + first * w + head * headWidth, cStride: w, rows: block, columns: headWidth,
                        depth: positions)
                    first += block
                }
            }
            WhisperKernels.linear(attended, rows: rows, layer.crossAttentionOutput, into: normed)
            WhisperKernels.add(normed, to: x, count: rows * w)

            let feedForward = layer.feedForward
            WhisperKernels.layerNorm(x, rows: rows, width: w, feedForward.norm, into: normed)
            WhisperKernels.linear(normed, rows: rows, feedForward.expand, into: hidden)
            WhisperKernels.gelu(hidden, count: rows * dimensions.feedForwardWidth)
            WhisperKernels.linear(hidden, rows: rows, feedForward.contract, into: normed)
            WhisperKernels.add(normed, to: x, count: rows * w)
        }
        length += perHypothesis

        computeLogits(rows: logitRows)
    }

    /// Leaves in ``logits`` the logits of rows `rows` (at most ``capacity``, or 2) of the last run:
    /// final norm, then the tied embedding.
    func computeLogits(rows logitRows: [Int]) {
        guard !logitRows.isEmpty else { return }
        precondition(logitRows.count <= logitCapacity)
        let weights = model.weights
        let w = width
        for (index, row) in logitRows.enumerated() { (projected + index * w).update(from: x + row * w, count: w) }
        WhisperKernels.layerNorm(projected, rows: logitRows.count, width: w, weights.decoderNorm, into: normed)
        let vocabulary = model.dimensions.vocabularySize
        switch weights.tokenEmbedding {
        case .half(let half) where logitRows.count == 1 && w % 8 == 0:
            // A greedy step's logits are bound by reading the embedding: half the bytes of floats.
            WhisperKernels.multiplyHalfRows(normed, by: half, columns: vocabulary, depth: w, into: logits)
        case .float(let embedding) where logitRows.count == 1:
            cblas_sgemv(
                CblasRowMajor, CblasNoTrans, Int32(vocabulary), Int32(w), 1, embedding, Int32(w), normed, 1, 0, logits,
                1)
        case let embedding where logitRows.count <= 8 && w % 4 == 0:
            WhisperKernels.multiplyFewRows(
                normed, rows: logitRows.count, by: embedding, columns: vocabulary, depth: w, into: logits,
                cStride: vocabulary)
        case let embedding:
            WhisperKernels.multiplyTransposed(
                normed, aStride: w, by: embedding, into: logits, cStride: vocabulary, rows: logitRows.count,
                columns: vocabulary, depth: w)
        }
    }

    /// The logits over the first `vocabulary` tokens of rows `rows` of the last run, `rows.count ×
    /// vocabulary`, in one matrix product (what word alignment needs: every text position's text-token
    /// logits, which one matrix–vector product per row would read the embedding for again and again).
    func logits(ofRows rows: Range<Int>, vocabulary: Int) -> [Float] {
        let w = width
        let weights = model.weights
        var result = [Float](repeating: 0, count: rows.count * vocabulary)
        let normedRows = UnsafeMutablePointer<Float>.allocate(capacity: rows.count * w)
        defer { normedRows.deallocate() }
        WhisperKernels.layerNorm(
            x + rows.lowerBound * w, rows: rows.count, width: w, weights.decoderNorm, into: normedRows)
        result.withUnsafeMutableBufferPointer { output in
            WhisperKernels.multiplyTransposed(
                normedRows, aStride: w, by: weights.tokenEmbedding, into: output.baseAddress!, cStride: vocabulary,
                rows: rows.count, columns: vocabulary, depth: w)
        }
        return result
    }

    /// Forgets the hypotheses, keeping the encoding: the next run starts at position 0.
    public func restart() {
        length = 0
        count = 0
    }

    /// Makes hypothesis `i` continue from hypothesis `parents[i]` of the current batch (copying its
    /// cache); the batch becomes `parents.count` hypotheses.
    public func reorder(_ parents: [Int]) {
        precondition(parents.count <= capacity)
        let layers = model.dimensions.textLayers
        let context = model.dimensions.textContext
        for (index, parent) in parents.enumerated() {
            for layer in 0..<layers {
                for half in 0..<2 {
                    let offset = layer * context * 2 * width + half * context * width
                    (spare + index * cacheStride + offset).update(
                        from: cache + parent * cacheStride + offset, count: length * width)
                }
            }
        }
        swap(&cache, &spare)
        count = parents.count
    }
}
