public import EarshotCore

/// Converts audio of any rate and channel count to mono at a working rate (16 or 8 kHz for speech),
/// with libsoxr (the default) or speexdsp.
///
/// Contract:
/// - Input: buffers in the `inputFormat` given at creation, in stream order.
/// - Output: mono buffers at `configuration.sampleRate`, stamped with media time at that rate.
///   Channels are averaged before resampling (cheaper than resampling each one).
/// - Latency: none visible. Each engine removes its filter's delay and `finish` flushes the tail, so
///   output frame *k* is the input at time *k* / rate and a stream of *n* input frames gives exactly
///   round(*n* × ratio) output frames.
/// - When the rates already match, samples pass through untouched (downmixed if needed), whatever
///   the engine.
/// - Allocations: none per block once the buffers have grown to the largest block seen.
public final class Resampler: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = AudioBuffer

    /// Resampler settings.
    public struct Configuration: Sendable, Hashable {
        /// Output rate in Hz; speech recognizers work at 16 000 (wideband) or 8 000 (narrowband).
        public var sampleRate: Int
        /// The library that converts the rate.
        public var engine: Engine
        /// speexdsp quality, 0 (fastest) to 10 (best); 4 is speexdsp's own default, transparent for
        /// speech. Checked for every engine, used by speexdsp only (libsoxr runs its HQ recipe).
        public var quality: Int

        public init(sampleRate: Int = 16_000, engine: Engine = .soxr, quality: Int = 4) {
            self.sampleRate = sampleRate
            self.engine = engine
            self.quality = quality
        }
    }

    public let inputFormat: AudioFormat
    public let outputFormat: AudioFormat
    public let configuration: Configuration

    private let engine: (any ResamplerEngine)?
    private var mono: [Float] = []
    private var converted: [Float] = []
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
        let (from, to) = (inputFormat.sampleRate, configuration.sampleRate)
        switch configuration.engine {
        case _ where from == to: engine = nil
        case .soxr: engine = try SoxrEngine(inputRate: from, outputRate: to)
        case .speexdsp: engine = try SpeexResamplerEngine(inputRate: from, outputRate: to, quality: configuration.quality)
        }
    }

    /// Frames of input the filter holds back at this moment (0 when rates match).
    public var inputLatency: Int { engine?.inputLatency ?? 0 }

    /// Media time just after the last sample emitted, at the output rate (nil before the first input).
    public var outputEnd: MediaTime? {
        outputOrigin.map { MediaTime(frame: $0 + outputFrames, sampleRate: outputFormat.sampleRate) }
    }

    public func process(_ input: AudioBuffer, into sink: inout StageOutput<AudioBuffer>) throws {
        try input.requireFormat(inputFormat, stage: "resampler")
        if outputOrigin == nil {
            outputOrigin = input.startTime.converted(to: outputFormat.sampleRate).frame
        }
        guard !input.isEmpty else { return }
        inputFrames += Int64(input.frameCount)
        if engine == nil && inputFormat.channelCount == 1 {
            emit(input.samples, into: &sink)
            return
        }
        downmix(input)
        if engine == nil {
            emit(mono, into: &sink)
        } else {
            resample(into: &sink)
        }
    }

    public func finish(into sink: inout StageOutput<AudioBuffer>) throws {
        guard let engine, outputOrigin != nil else { return }
        // Flush the filter until the output reaches the length the input implies, then stop there.
        let expected =
            (inputFrames * Int64(outputFormat.sampleRate) + Int64(inputFormat.sampleRate / 2))
            / Int64(inputFormat.sampleRate)
        var produced = 0
        var rounds = 0
        while outputFrames + Int64(produced) < expected && rounds < 16 {
            reserve(produced + 4_096)
            let count = converted.withUnsafeMutableBufferPointer { engine.drain(into: .init(rebasing: $0[produced...])) }
            if count == 0 { break }
            produced += count
            rounds += 1
        }
        emitConverted(Int(min(Int64(produced), expected - outputFrames)), into: &sink)
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
                if channels == 2 {  // the common case, in a loop the compiler vectorizes
                    for frame in 0..<frames { target[frame] = (source[2 * frame] + source[2 * frame + 1]) * scale }
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

    /// Resamples all of `mono` and emits what the engine released.
    private func resample(into sink: inout StageOutput<AudioBuffer>) {
        guard let engine else { return }
        let frameCount = mono.count
        reserve(frameCount * outputFormat.sampleRate / inputFormat.sampleRate + 256)
        var consumed = 0
        var produced = 0
        while consumed < frameCount {
            // An engine that buffers (libsoxr works in blocks) may release more than this block's share.
            if produced == converted.count { reserve(2 * converted.count) }
            let (used, made) = mono.withUnsafeBufferPointer { source in
                converted.withUnsafeMutableBufferPointer { target in
                    engine.process(.init(rebasing: source[consumed...]), into: .init(rebasing: target[produced...]))
                }
            }
            consumed += used
            produced += made
            if used == 0 && made == 0 { break }
        }
        emitConverted(produced, into: &sink)
    }

    /// Grows `converted` to hold at least `count` samples; it never shrinks, so steady state allocates nothing.
    private func reserve(_ count: Int) {
        if converted.count < count { converted.append(contentsOf: repeatElement(0, count: count - converted.count)) }
    }

    /// Emits the first `count` samples of `converted`.
    private func emitConverted(_ count: Int, into sink: inout StageOutput<AudioBuffer>) {
        guard count > 0 else { return }
        output.samples.removeAll(keepingCapacity: true)
        output.samples.append(contentsOf: converted[..<count])
        output.startFrame = outputOrigin! + outputFrames
        outputFrames += Int64(count)
        sink.emit(output)
    }

    private func emit(_ samples: [Float], into sink: inout StageOutput<AudioBuffer>) {
        output.samples = samples
        output.startFrame = outputOrigin! + outputFrames
        outputFrames += Int64(output.frameCount)
        sink.emit(output)
    }
}
