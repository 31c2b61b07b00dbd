import EarshotCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Silero VAD v6's network (https://github.com/snakers4/silero-vad, MIT), run by Earshot's own
/// inference on weights from ``SileroModel``: the learned detector, and the default when its model is
/// installed.
///
/// Contract: 16 kHz only (any other rate throws naming `sampleRate`; the pipeline resamples to
/// 16 kHz). Hop 512 samples (32 ms), frame 576: each frame is the 64 samples before the decided chunk
/// (Silero's context) followed by the chunk, so ``VADStage``'s framing — zeros before the stream, a
/// zero-padded last chunk — feeds the network exactly what Silero's own wrapper (`OnnxWrapper`) feeds
/// it. Causal (`lookAhead` 0). The LSTM's state carries from chunk to chunk; ``reset()`` clears it.
///
/// The network, as the ONNX graph's 16 kHz branch computes it:
/// 1. pad the 576 samples on the right by reflection (64 samples) to 640;
/// 2. STFT as a convolution: 258 filters of 256, stride 128 → 4 frames; magnitude
///    `√(re² + im²)` of the two 129-filter halves;
/// 3. four convolutions, kernel 3, padding 1, each followed by ReLU: 129→128 (stride 1), 128→64 (2),
///    64→64 (2), 64→128 (1) — 4 frames become 1;
/// 4. an LSTM cell of 128 (gates i, f, g, o) on that frame, with the state carried between chunks;
/// 5. ReLU, a 1×1 convolution to one value, sigmoid (the mean over the one frame is that value).
///
/// Not `Sendable`: it owns its state and scratch (preallocated; nothing is allocated per chunk). Each
/// stream makes its own detector; they share one ``SileroModel``.
public final class SileroDetector: VoiceActivityDetector {
    /// Samples decided per call: 32 ms at 16 kHz.
    public static let chunkLength = 512
    /// Samples of the previous chunk the network sees before each chunk.
    public static let contextLength = 64

    public var name: String { "silero" }
    public let sampleRate: Int
    public var frameLength: Int { Self.chunkLength + Self.contextLength }
    public var hopLength: Int { Self.chunkLength }
    public var lookAhead: Int { 0 }

    /// The weights this detector runs.
    public let model: SileroModel

    private let scratch: UnsafeMutablePointer<Float>
    private let padded: UnsafeMutablePointer<Float>  // 640 samples
    private let spectrum: UnsafeMutablePointer<Float>  // [258][4] filter outputs, then [129][4] magnitudes
    private let columns: UnsafeMutablePointer<Float>  // unfolded convolution input, up to 4 × 387
    private let features: UnsafeMutablePointer<Float>  // [128][4] then [64][2] then [64][1]
    private let features2: UnsafeMutablePointer<Float>  // ping-pong partner of `features`
    private let lstmInput: UnsafeMutablePointer<Float>  // [x; h], 256: h is the carried hidden state
    private let gates: UnsafeMutablePointer<Float>  // 512
    private let cell: UnsafeMutablePointer<Float>  // 128, the carried cell state

    private static let scratchLayout = [640, 258 * 4, 4 * 387, 128 * 4, 128 * 4, 256, 512, 128]

    /// A detector running `model` at `sampleRate`, which must be 16 000 Hz.
    public init(model: SileroModel, sampleRate: Int = 16_000) throws {
        guard sampleRate == 16_000 else {
            throw EarshotError(
                .unsupportedFormat,
                "silero VAD sampleRate: \(sampleRate) Hz; expected 16000 Hz (the network is run at 16 kHz only; "
                    + "resample upstream)")
        }
        self.sampleRate = sampleRate
        self.model = model
        _ = SileroKernels.singleThreaded
        let total = Self.scratchLayout.reduce(0, +)
        scratch = .allocate(capacity: total)
        scratch.initialize(repeating: 0, count: total)
        var next = scratch
        func take(_ count: Int) -> UnsafeMutablePointer<Float> {
            defer { next += count }
            return next
        }
        padded = take(640)
        spectrum = take(258 * 4)
        columns = take(4 * 387)
        features = take(128 * 4)
        features2 = take(128 * 4)
        lstmInput = take(256)
        gates = take(512)
        cell = take(128)
    }

    deinit { scratch.deallocate() }

    public func probability(of frame: UnsafeBufferPointer<Float>) -> Float {
        precondition(frame.count == frameLength, "silero VAD: frame of \(frame.count) samples; expected \(frameLength)")
        let input = frame.baseAddress!
        // 1. Right reflection padding: padded[576 + k] = input[574 − k].
        padded.update(from: input, count: 576)
        for k in 0..<64 { padded[576 + k] = input[574 - k] }

        // 2. STFT: 4 windows of 256 at stride 128, against 258 filters; then magnitudes in place.
        SileroKernels.multiply(model.stft, columns: padded, stride: 128, count: 4, into: spectrum, relu: false)
        for index in 0..<(129 * 4) {
            let real = spectrum[index]
            let imaginary = spectrum[129 * 4 + index]
            spectrum[index] = (real * real + imaginary * imaginary).squareRoot()
        }

        // 3. Encoder: [129][4] → [128][4] → [64][2] → [64][1] → [128][1] (straight into the LSTM's x).
        let encoder = model.encoder
        SileroKernels.unfold(spectrum, channels: 129, inputLength: 4, stride: 1, outputLength: 4, into: columns)
        SileroKernels.multiply(encoder[0], columns: columns, stride: 387, count: 4, into: features, relu: true)
        SileroKernels.unfold(features, channels: 128, inputLength: 4, stride: 2, outputLength: 2, into: columns)
        SileroKernels.multiply(encoder[1], columns: columns, stride: 384, count: 2, into: features2, relu: true)
        SileroKernels.unfold(features2, channels: 64, inputLength: 2, stride: 2, outputLength: 1, into: columns)
        SileroKernels.multiply(encoder[2], columns: columns, stride: 192, count: 1, into: features, relu: true)
        SileroKernels.unfold(features, channels: 64, inputLength: 1, stride: 1, outputLength: 1, into: columns)
        SileroKernels.multiply(encoder[3], columns: columns, stride: 192, count: 1, into: lstmInput, relu: true)

        // 4. LSTM cell, PyTorch's gate order i, f, g, o.
        SileroKernels.multiply(model.lstm, columns: lstmInput, stride: 256, count: 1, into: gates, relu: false)
        let hidden = lstmInput + 128
        for j in 0..<128 {
            let inputGate = sigmoid(gates[j])
            let forgetGate = sigmoid(gates[128 + j])
            let candidate = tanhf(gates[256 + j])
            let outputGate = sigmoid(gates[384 + j])
            cell[j] = forgetGate * cell[j] + inputGate * candidate
            hidden[j] = outputGate * tanhf(cell[j])
        }

        // 5. ReLU, 1×1 convolution, sigmoid.
        var logit = model.decoder.bias![0]
        for j in 0..<128 { logit += model.decoder.weights[j] * max(hidden[j], 0) }
        return sigmoid(logit)
    }

    public func reset() {
        lstmInput.update(repeating: 0, count: 256)
        cell.update(repeating: 0, count: 128)
    }

    @inline(__always)
    private func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }
}
