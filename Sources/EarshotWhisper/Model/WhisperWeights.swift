/// The weights of a Whisper model as the kernels use them, row-major views of ``WhisperTensors`` (which
/// ``WhisperModel`` owns and never writes after loading). The names follow CTranslate2's spec.
struct WhisperWeights {
    /// A weight matrix, rows of contiguous values: IEEE halves when the file stores float16 (the
    /// kernels widen them as they read), int8 with one step per row (a value is `q · steps[row]`:
    /// CTranslate2's int8 files, or any model loaded with ``WhisperModel/WeightPrecision/int8``), else
    /// `Float`s.
    enum Matrix {
        case float(UnsafePointer<Float>)
        case half(UnsafePointer<UInt16>)
        case int8(UnsafePointer<Int8>, steps: UnsafePointer<Float>)
    }

    /// `y = W·x + b` for a `[outputs][inputs]` matrix `W`.
    struct Linear {
        let weight: Matrix
        let bias: UnsafePointer<Float>
        let outputs: Int
        let inputs: Int
    }

    /// Layer normalization's scale and shift.
    struct Norm {
        let gamma: UnsafePointer<Float>
        let beta: UnsafePointer<Float>
    }

    struct FeedForward {
        let norm: Norm
        let expand: Linear
        let contract: Linear
    }

    struct EncoderLayer {
        let attentionNorm: Norm
        /// Queries, keys and values in one `[3·width][width]` matrix, in that order.
        let queryKeyValue: Linear
        let attentionOutput: Linear
        let feedForward: FeedForward
    }

    struct DecoderLayer {
        let selfAttentionNorm: Norm
        let selfQueryKeyValue: Linear
        let selfAttentionOutput: Linear
        let crossAttentionNorm: Norm
        let crossQuery: Linear
        /// The encoder output's keys and values in one `[2·width][width]` matrix.
        let crossKeyValue: Linear
        let crossAttentionOutput: Linear
        let feedForward: FeedForward
    }

    /// The two convolutions, as `[width][inputChannels·3]` matrices (kernel 3, PyTorch's layout).
    let convolution1: Linear
    let convolution2: Linear
    let encoderPositions: UnsafePointer<Float>
    let encoderLayers: [EncoderLayer]
    let encoderNorm: Norm
    /// `[vocabulary][width]`; also the output projection (tied).
    let tokenEmbedding: Matrix
    let decoderPositions: UnsafePointer<Float>
    let decoderLayers: [DecoderLayer]
    let decoderNorm: Norm

    /// Builds the views of the loaded values of each of the dimensions' expected tensors.
    init(dimensions: WhisperDimensions, tensors: WhisperTensors) {
        let d = dimensions.width
        let f = dimensions.feedForwardWidth
        let tensor = tensors.values
        func linear(_ prefix: String, _ outputs: Int, _ inputs: Int) -> Linear {
            Linear(
                weight: tensors.matrix(prefix + "/weight"), bias: tensor(prefix + "/bias"), outputs: outputs,
                inputs: inputs)
        }
        func norm(_ prefix: String) -> Norm { Norm(gamma: tensor(prefix + "/gamma"), beta: tensor(prefix + "/beta")) }
        func feedForward(_ prefix: String) -> FeedForward {
            FeedForward(
                norm: norm(prefix + "/layer_norm"), expand: linear(prefix + "/linear_0", f, d),
                contract: linear(prefix + "/linear_1", d, f))
        }
        convolution1 = linear("encoder/conv1", d, dimensions.melBins * 3)
        convolution2 = linear("encoder/conv2", d, d * 3)
        encoderPositions = tensor("encoder/position_encodings/encodings")
        encoderLayers = (0..<dimensions.audioLayers).map { layer in
            let prefix = "encoder/layer_\(layer)"
            return EncoderLayer(
                attentionNorm: norm(prefix + "/self_attention/layer_norm"),
                queryKeyValue: linear(prefix + "/self_attention/linear_0", 3 * d, d),
                attentionOutput: linear(prefix + "/self_attention/linear_1", d, d),
                feedForward: feedForward(prefix + "/ffn"))
        }
        encoderNorm = norm("encoder/layer_norm")
        tokenEmbedding = tensors.matrix("decoder/embeddings/weight")
        decoderPositions = tensor("decoder/position_encodings/encodings")
        decoderLayers = (0..<dimensions.textLayers).map { layer in
            let prefix = "decoder/layer_\(layer)"
            return DecoderLayer(
                selfAttentionNorm: norm(prefix + "/self_attention/layer_norm"),
                selfQueryKeyValue: linear(prefix + "/self_attention/linear_0", 3 * d, d),
                selfAttentionOutput: linear(prefix + "/self_attention/linear_1", d, d),
                crossAttentionNorm: norm(prefix + "/attention/layer_norm"),
                crossQuery: linear(prefix + "/attention/linear_0", d, d),
                crossKeyValue: linear(prefix + "/attention/linear_1", 2 * d, d),
                crossAttentionOutput: linear(prefix + "/attention/linear_2", d, d),
                feedForward: feedForward(prefix + "/ffn"))
        }
        decoderNorm = norm("decoder/layer_norm")
    }
}
