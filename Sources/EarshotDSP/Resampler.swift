import CSpeexDSP
import EarshotCore

/// Converts audio of any rate and channel count to mono at a working rate (16 or 8 kHz for speech),
/// with speexdsp's windowed-sinc resampler.
///
/// Contract:
/// - Input: buffers in the `inputFormat` given at creation, in stream order.
/// - Output: mono buffers at `configuration.sampleRate`, stamped with media time at that rate.
///   Channels are averaged before resampling (cheaper than resampling each one).
/// - Latency: none visible. The filter's delay (`speex_resampler_get_input_latency`, e.g. 24 input
///   frames at quality 4 for 48→16 kHz) is removed with `speex_resampler_skip_zeros`, and `finish`
///   flushes the tail with zeros, so output frame *k* is the input at time *k* / rate and a stream of
///   *n* input frames gives exactly round(*n* × ratio) output frames.
/// - When the rates already match, samples pass through untouched (downmixed if needed).
public final class Resampler: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = AudioBuffer

    /// Resampler settings.
    public struct Configuration: Sendable, Hashable {
        /// Output rate in Hz; speech recognizers work at 16 000 (wideband) or 8 000 (narrowband).
        public var sampleRate: Int
        /// speexdsp quality, 0 (fastest) to 10 (best). 4 is speexdsp's own default, transparent for speech.
        public var quality: Int

        public init(sampleRate: Int = 16_000, quality: Int = 4) {
            self.sampleRate = sampleRate
            self.quality = quality
        }
    }

    public let inputFormat: AudioFormat
    public let outputFormat: AudioFormat
    public let configuration: Configuration

    private let state: OpaquePointer?
    private var mono: [Float] = []
    private var output: AudioBuffer
    private var inputFrames: Int64 = 0
    private var outputFrames: Int64 = 0
    private var outputOrigin: Int64?

    public init(inputFormat: AudioFormat, configuration: Configuration = Configuration()) throws {
        guard (0...10).contains(configuration.quality) else {
            throw EarshotError(
                .invalidParameter, "resampler quality: \(configuration.quality) is out of range; expected 0–10")
        }
        outputFormat = try AudioFormat(
            sampleRate: configuration.sampleRate, channelCount: 1, origin: "resampler sample rate")
        self.inputFormat = inputFormat
        self.configuration = configuration
        output = AudioBuffer(format: outputFormat)
        if inputFormat.sampleRate == configuration.sampleRate {
            state = nil
            return
        }
        var status: Int32 = 0
        guard
            let state = speex_resampler_init(
                1, spx_uint32_t(inputFormat.sampleRate), spx_uint32_t(configuration.sampleRate),
                Int32(configuration.quality), &status)
        else {
            throw EarshotError(
                .invalidParameter,
                "resampler: speexdsp refused \(inputFormat.sampleRate) → \(configuration.sampleRate) Hz (\(String(cString: speex_resampler_strerror(status))))"
            )
        }
        speex_resampler_skip_zeros(state)
        self.state = state
    }

    deinit {
        if let state { speex_resampler_destroy(state) }
    }

    /// Frames of input the filter holds back before they reach the output (0 when rates match).
    public var inputLatency: Int { state.map { Int(speex_resampler_get_input_latency($0)) } ?? 0 }

    public func process(_ input: AudioBuffer, into sink: inout StageOutput<AudioBuffer>) throws {
        try input.requireFormat(inputFormat, stage: "resampler")
        if outputOrigin == nil {
            outputOrigin = input.startTime.converted(to: outputFormat.sampleRate).frame
        }
        guard !input.isEmpty else { return }
        inputFrames += Int64(input.frameCount)
        if state == nil && inputFormat.channelCount == 1 {
            emit(input.samples, into: &sink)
            return
        }
        downmix(input)
        if state == nil {
            emit(mono, into: &sink)
        } else {
            resample(frameCount: mono.count, into: &sink)
        }
    }

    public func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        guard let state, outputOrigin != nil else { return }
        // Push zeros through until the output reaches the length the input implies, then stop there.
        let expected =
            (inputFrames * Int64(outputFormat.sampleRate) + Int64(inputFormat.sampleRate / 2))
            / Int64(inputFormat.sampleRate)
        let flushFrames = Int(speex_resampler_get_input_latency(state)) + 1
        mono.removeAll(keepingCapacity: true)
        mono.append(contentsOf: repeatElement(0, count: flushFrames))
        var rounds = 0
        while outputFrames < expected && rounds < 8 {
            resample(frameCount: flushFrames, into: &sink, limit: expected - outputFrames)
            rounds += 1
        }
    }

    /// Averages the channels of `input` into `mono`.
    private func downmix(_ input: AudioBuffer) {
        let channels = inputFormat.channelCount
        let frames = input.frameCount
        if mono.count != frames {
            mono.removeAll(keepingCapacity: true)
            mono.append(contentsOf: repeatElement(0, count: frames))
        }
        let scale = 1 / Float(channels)
        input.samples.withUnsafeBufferPointer { source in
            mono.withUnsafeMutableBufferPointer { target in
                if channels == 1 {
                    _ = target.initialize(fromContentsOf: source)
                    return
                }
                for frame in 0..<frames {
                    var sum: Float = 0
                    for channel in 0..<channels { sum += source[frame * channels + channel] }
                    target[frame] = sum * scale
                }
            }
        }
    }

    /// Resamples the first `frameCount` frames of `mono` and emits the result (at most `limit` frames).
    private func resample(frameCount: Int, into sink: inout StageOutput<AudioBuffer>, limit: Int64 = .max) {
        guard let state else { return }
        let capacity = frameCount * outputFormat.sampleRate / inputFormat.sampleRate + 64
        output.samples.removeAll(keepingCapacity: true)
        output.samples.append(contentsOf: repeatElement(0, count: capacity))
        var produced = 0
        mono.withUnsafeBufferPointer { source in
            output.samples.withUnsafeMutableBufferPointer { target in
                var consumed = 0
                while consumed < frameCount && produced < capacity {
                    var inLength = spx_uint32_t(frameCount - consumed)
                    var outLength = spx_uint32_t(capacity - produced)
                    speex_resampler_process_float(
                        state, 0, source.baseAddress! + consumed, &inLength, target.baseAddress! + produced, &outLength)
                    consumed += Int(inLength)
                    produced += Int(outLength)
                    if inLength == 0 && outLength == 0 { break }
                }
            }
        }
        produced = Int(min(Int64(produced), limit))
        output.samples.removeLast(capacity - produced)
        guard produced > 0 else { return }
        output.startFrame = outputOrigin! + outputFrames
        outputFrames += Int64(produced)
        sink.emit(output)
    }

    private func emit(_ samples: [Float], into sink: inout StageOutput<AudioBuffer>) {
        output.samples = samples
        output.startFrame = outputOrigin! + outputFrames
        outputFrames += Int64(output.frameCount)
        sink.emit(output)
    }
}
