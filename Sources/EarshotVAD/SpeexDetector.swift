import CSpeexDSP
import EarshotCore

/// speexdsp's preprocessor VAD, kept as a weak baseline: it is tuned for echo-cancelled VoIP, and its
/// probability saturates near 1 on clean speech, pauses included.
///
/// Contract: any rate from 8 to 48 kHz that is a multiple of 100 Hz; hop and frame 10 ms (speexdsp
/// overlaps frames internally); causal. Samples are converted to 16-bit (clipped at full scale) because
/// that is what the preprocessor takes. The probability is speexdsp's own speech probability
/// (`SPEEX_PREPROCESS_GET_PROB`, a percentage) divided by 100; denoising stays on because speexdsp
/// computes that probability in its noise estimator.
///
/// `SPEEX_PREPROCESS_SET_VAD` is deliberately not set: it only makes `speex_preprocess_run` return a
/// 0/1 decision (the same probability with hysteresis, which the smoother does for every detector), and
/// it makes speexdsp print "The VAD has been replaced by a hack" to stderr on every state. With and
/// without it, `GET_PROB` gives identical values (checked frame by frame on a LibriVox clip).
///
/// Not `Sendable`: it owns a speexdsp preprocessor state (freed in `deinit`); each task makes its own.
public final class SpeexDetector: VoiceActivityDetector {
    /// Sample rates the detector accepts, in Hz.
    public static let sampleRates: ClosedRange<Int> = 8_000...48_000

    public var name: String { "speex" }
    public let sampleRate: Int
    public var frameLength: Int { hopLength }
    public let hopLength: Int
    public var lookAhead: Int { 0 }

    private var state: OpaquePointer
    private let samples: UnsafeMutablePointer<spx_int16_t>

    /// Creates a detector for `sampleRate`; throws `.unsupportedFormat` naming `sampleRate` outside 8–48 kHz.
    public init(sampleRate: Int) throws {
        guard Self.sampleRates.contains(sampleRate), sampleRate % 100 == 0 else {
            throw EarshotError(
                .unsupportedFormat,
                "speex VAD sampleRate: \(sampleRate) Hz; expected a multiple of 100 Hz in 8000–48000 Hz")
        }
        self.sampleRate = sampleRate
        hopLength = sampleRate / 100
        guard let state = Self.makeState(frameLength: hopLength, sampleRate: sampleRate) else {
            throw EarshotError(.invalidParameter, "speex VAD: speexdsp refused a \(sampleRate) Hz preprocessor")
        }
        self.state = state
        samples = .allocate(capacity: hopLength)
        samples.initialize(repeating: 0, count: hopLength)
    }

    deinit {
        speex_preprocess_state_destroy(state)
        samples.deallocate()
    }

    public func probability(of frame: UnsafeBufferPointer<Float>) -> Float {
        precondition(frame.count == hopLength, "speex VAD: frame of \(frame.count) samples; expected \(hopLength)")
        for index in 0..<hopLength {
            let scaled = (frame[index] * 32768).rounded()
            samples[index] = spx_int16_t(min(max(scaled, -32768), 32767))
        }
        speex_preprocess_run(state, samples)
        var percent: spx_int32_t = 0
        speex_preprocess_ctl(state, SPEEX_PREPROCESS_GET_PROB, &percent)
        return Float(min(max(percent, 0), 100)) / 100
    }

    public func reset() {
        // speexdsp has no reset: a new state is the only way to forget its noise estimate.
        if let fresh = Self.makeState(frameLength: hopLength, sampleRate: sampleRate) {
            speex_preprocess_state_destroy(state)
            state = fresh
        }
    }

    private static func makeState(frameLength: Int, sampleRate: Int) -> OpaquePointer? {
        speex_preprocess_state_init(Int32(frameLength), Int32(sampleRate))
    }
}
