/// A block of audio: interleaved float samples, their format, and where they sit in the stream.
///
/// `startFrame` is the media time of the first frame, counted at `format.sampleRate` from the start
/// of the stream, so any sample's timestamp is exact and independent of the wall clock. Buffers are
/// values with copy-on-write storage: a stage that keeps one buffer and overwrites it for each call
/// allocates nothing as long as the consumer does not hold on to the previous one.
public struct AudioBuffer: Sendable {
    public var format: AudioFormat
    /// Interleaved samples, `frameCount * format.channelCount` of them, nominally in [-1, 1].
    public var samples: [Float]
    /// Media time of the first frame, in frames at `format.sampleRate`.
    public var startFrame: Int64

    @inlinable
    public init(format: AudioFormat, samples: [Float] = [], startFrame: Int64 = 0) {
        precondition(samples.count % format.channelCount == 0, "samples must hold whole frames")
        self.format = format
        self.samples = samples
        self.startFrame = startFrame
    }

    @inlinable
    public var frameCount: Int { samples.count / format.channelCount }

    @inlinable
    public var isEmpty: Bool { samples.isEmpty }

    /// Media time of the first frame.
    @inlinable
    public var startTime: MediaTime { MediaTime(frame: startFrame, sampleRate: format.sampleRate) }

    /// Media time just after the last frame.
    @inlinable
    public var endTime: MediaTime {
        MediaTime(frame: startFrame + Int64(frameCount), sampleRate: format.sampleRate)
    }

    /// Duration in seconds.
    @inlinable
    public var duration: Double { Double(frameCount) / Double(format.sampleRate) }

    /// The check every stage makes on its input: throws `.unsupportedFormat` unless this buffer is in
    /// `expected`. `stage` names the stage in the message ("resampler", "AMR-NB encoder").
    @inlinable
    public func requireFormat(_ expected: AudioFormat, stage: @autoclosure () -> String) throws {
        guard format != expected else { return }
        throw EarshotError(.unsupportedFormat, "\(stage()): got \(format); expected \(expected) (resample first)")
    }
}
