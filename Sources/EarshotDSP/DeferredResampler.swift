public import EarshotCore

/// A ``Resampler`` made at the first buffer, from that buffer's format: for streams whose format is
/// known only once they are decoded (a WAV or FLAC body's header says its rate). Until then it holds
/// nothing; finishing before any buffer emits nothing.
public struct DeferredResampler: AudioStage {
    public typealias Input = AudioBuffer
    public typealias Output = AudioBuffer

    public let configuration: Resampler.Configuration
    /// The resampler, once the first buffer has come.
    public private(set) var resampler: Resampler?

    public init(configuration: Resampler.Configuration = Resampler.Configuration()) {
        self.configuration = configuration
    }

    public mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        if resampler == nil { resampler = try Resampler(inputFormat: input.format, configuration: configuration) }
        try resampler!.process(input, into: &output)
    }

    public mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {
        try resampler?.finish(into: &output)
    }
}
