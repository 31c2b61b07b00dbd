/// The size of a Whisper model, read off its tensors' shapes (openai/whisper's `ModelDimensions`):
/// tiny is 80 mel bins, 1 500 audio frames, width 384, 6 heads, 4 + 4 layers, 448 text positions.
public struct WhisperDimensions: Sendable, Equatable, CustomStringConvertible {
    /// Mel bins of the input (80; 128 for large-v3).
    public var melBins: Int
    /// Encoder positions: 1 500, one per 20 ms of a 30 s window.
    public var audioContext: Int
    /// The model's width (384 for tiny).
    public var width: Int
    /// Attention heads of the encoder and of the decoder.
    public var audioHeads: Int
    public var textHeads: Int
    /// Transformer blocks of the encoder and of the decoder.
    public var audioLayers: Int
    public var textLayers: Int
    /// Hidden width of the feed-forward blocks (4 × width).
    public var feedForwardWidth: Int
    /// Tokens in the vocabulary, and decoder positions (448).
    public var vocabularySize: Int
    public var textContext: Int

    public var description: String {
        "\(audioLayers)+\(textLayers) layers, width \(width), \(audioHeads) heads, \(melBins) mel bins, "
            + "\(vocabularySize) tokens"
    }

    /// Each tensor the architecture needs, with its shape: what ``WhisperModel`` checks the file against.
    var expectedTensors: [(name: String, shape: [Int])] {
        let (d, f) = (width, feedForwardWidth)
        var tensors: [(String, [Int])] = [
            ("encoder/conv1/weight", [d, melBins, 3]), ("encoder/conv1/bias", [d]),
            ("encoder/conv2/weight", [d, d, 3]), ("encoder/conv2/bias", [d]),
            ("encoder/position_encodings/encodings", [audioContext, d]),
        ]
        func norm(_ prefix: String) -> [(String, [Int])] { [(prefix + "/gamma", [d]), (prefix + "/beta", [d])] }
        func linear(_ prefix: String, _ outputs: Int, _ inputs: Int) -> [(String, [Int])] {
            [(prefix + "/weight", [outputs, inputs]), (prefix + "/bias", [outputs])]
        }
        func feedForward(_ prefix: String) -> [(String, [Int])] {
            norm(prefix + "/layer_norm") + linear(prefix + "/linear_0", f, d) + linear(prefix + "/linear_1", d, f)
        }
        for layer in 0..<audioLayers {
            let prefix = "encoder/layer_\(layer)"
            tensors += norm(prefix + "/self_attention/layer_norm")
            tensors += linear(prefix + "/self_attention/linear_0", 3 * d, d)
            tensors += linear(prefix + "/self_attention/linear_1", d, d)
            tensors += feedForward(prefix + "/ffn")
        }
        tensors += norm("encoder/layer_norm")
        tensors += [
            ("decoder/embeddings/weight", [vocabularySize, d]),
            ("decoder/position_encodings/encodings", [textContext, d]),
        ]
        for layer in 0..<textLayers {
            let prefix = "decoder/layer_\(layer)"
            tensors += norm(prefix + "/self_attention/layer_norm")
            tensors += linear(prefix + "/self_attention/linear_0", 3 * d, d)
            tensors += linear(prefix + "/self_attention/linear_1", d, d)
            tensors += norm(prefix + "/attention/layer_norm")
            tensors += linear(prefix + "/attention/linear_0", d, d)
            tensors += linear(prefix + "/attention/linear_1", 2 * d, d)
            tensors += linear(prefix + "/attention/linear_2", d, d)
            tensors += feedForward(prefix + "/ffn")
        }
        tensors += norm("decoder/layer_norm")
        return tensors
    }

    /// Scalars the file carries and the values this inference implements: pre-norm blocks, exact
    /// (erf) GELU (CTranslate2's activation code 3), unscaled embeddings, learned positions.
    static let expectedFlags: [(name: String, value: Int, meaning: String)] = [
        ("decoder/activation", 3, "GELU (activation code 3)"),
        ("decoder/pre_norm", 1, "pre-norm blocks"),
        ("decoder/scale_embeddings", 0, "unscaled embeddings"),
        ("decoder/alibi", 0, "no ALiBi"),
        ("decoder/start_from_zero_embedding", 0, "no zero start embedding"),
    ]

    /// Scalars newer CTranslate2 converters add (Whisper base's file has them, tiny.en's does not):
    /// checked when present, as ALiBi's settings must say it is off.
    static let optionalFlags: [(name: String, value: Int, meaning: String)] = [
        ("decoder/alibi_use_positive_positions", 0, "no ALiBi"),
        ("decoder/scale_alibi", 0, "no ALiBi"),
    ]
}
