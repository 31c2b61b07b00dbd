public import EarshotCore

/// Measures RMS and peak level in dBFS for every `interval` of media time (100 ms by default: the seed
/// SDK's `audioLevel` callback, about ten a second), and counts clipped samples.
///
/// Contract:
/// - Input: buffers of any format, in stream order; they pass through unchanged.
/// - Events: one `.level` per window, stamped with the window's start. Window *k* covers frames
///   ⌊*k* × rate × interval⌋ up to the next boundary, counted from the first buffer's start, so windows
///   stay on exact media-time boundaries even where rate × interval is not whole (11 025 Hz gives
///   windows of 1 102 and 1 103 frames in turn). `finish` posts the last, partial window.
/// - Latency: one window (a level is known when its window closes).
/// - RMS and peak are taken over all channels' samples together.
public struct LevelMeter: AudioStage, Sendable {
    public typealias Input = AudioBuffer
    public typealias Output = AudioBuffer

    /// Level meter settings.
    public struct Configuration: Sendable, Hashable {
        /// Window length in milliseconds of media time.
        public var intervalMilliseconds: Int
        /// Absolute sample value at or above which a sample counts as clipped. The default is the
        /// 16-bit full scale (32 767 / 32 768), so only samples pinned at the rails count.
        public var clippingThreshold: Float

        public init(intervalMilliseconds: Int = 100, clippingThreshold: Float = 32_767.0 / 32_768.0) {
            self.intervalMilliseconds = intervalMilliseconds
            self.clippingThreshold = clippingThreshold
        }
    }

    /// Running sums over one stretch of audio.
    struct Accumulator: Sendable {
        var frames = 0
        var sumOfSquares: Double = 0
        var peak: Float = 0
        var clipped = 0
        var samples = 0

        func level() -> AudioLevel {
            let meanSquare = samples > 0 ? sumOfSquares / Double(samples) : 0
            return AudioLevel(
                frameCount: frames, rmsDBFS: AudioLevel.decibels(Float(meanSquare.squareRoot())),
                peakDBFS: AudioLevel.decibels(peak), clippedSamples: clipped)
        }
    }

    public let configuration: Configuration
    private var window = Accumulator()
    private var whole = Accumulator()
    private var windowIndex: Int64 = 0
    private var origin: MediaTime?
    private var framesSeen: Int64 = 0

    public init(configuration: Configuration = Configuration()) throws {
        guard configuration.intervalMilliseconds > 0 else {
            throw EarshotError(
                .invalidParameter,
                "level interval: \(configuration.intervalMilliseconds) ms; expected a positive number of milliseconds")
        }
        guard configuration.clippingThreshold > 0 else {
            throw EarshotError(
                .invalidParameter,
                "clipping threshold: \(configuration.clippingThreshold); expected a positive amplitude")
        }
        self.configuration = configuration
    }

    /// The level of everything metered so far (the whole stream, after `finish`).
    public var overall: AudioLevel { whole.level() }

    public mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        let origin = self.origin ?? input.startTime
        self.origin = origin
        let rate = Int64(origin.sampleRate)
        let channels = input.format.channelCount
        let threshold = configuration.clippingThreshold
        var frame = 0
        input.samples.withUnsafeBufferPointer { samples in
            while frame < input.frameCount {
                let boundary = (windowIndex + 1) * rate * Int64(configuration.intervalMilliseconds) / 1000
                let take = Int(min(Int64(input.frameCount - frame), boundary - framesSeen))
                var sum: Double = 0
                var peak: Float = window.peak
                var clipped = 0
                for sample in samples[frame * channels..<(frame + take) * channels] {
                    sum += Double(sample * sample)
                    let magnitude = abs(sample)
                    peak = max(peak, magnitude)
                    if magnitude >= threshold { clipped += 1 }
                }
                window.frames += take
                window.samples += take * channels
                window.sumOfSquares += sum
                window.peak = peak
                window.clipped += clipped
                frame += take
                framesSeen += Int64(take)
                if framesSeen == boundary { closeWindow(origin: origin, into: &output) }
            }
        }
        output.emit(input)
    }

    public mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {
        if let origin, window.frames > 0 { closeWindow(origin: origin, into: &output) }
    }

    private mutating func closeWindow(origin: MediaTime, into output: inout StageOutput<AudioBuffer>) {
        let start = windowIndex * Int64(origin.sampleRate) * Int64(configuration.intervalMilliseconds) / 1000
        output.post(StageEvent(time: origin.advanced(by: start), kind: .level(window.level())))
        whole.frames += window.frames
        whole.samples += window.samples
        whole.sumOfSquares += window.sumOfSquares
        whole.peak = max(whole.peak, window.peak)
        whole.clipped += window.clipped
        window = Accumulator()
        windowIndex += 1
    }
}
