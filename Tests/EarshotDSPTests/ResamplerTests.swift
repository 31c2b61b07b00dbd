import EarshotCore
import EarshotDSP
import EarshotTesting
import EarshotTestTraits
import Testing

/// Runs `input` through `resampler` in blocks of `blockFrames`, checking the output's time stamps.
private func resample(_ input: AudioBuffer, with resampler: Resampler, blockFrames: Int = 1_000) throws -> AudioBuffer {
    var output = AudioBuffer(format: resampler.outputFormat)
    var sink = StageOutput<AudioBuffer>()
    var next: Int64 = 0
    func collect() {
        for buffer in sink.items {
            #expect(buffer.startFrame == next, "output buffers are contiguous in media time")
            next += Int64(buffer.frameCount)
            output.samples += buffer.samples
        }
        sink.removeAll()
    }
    for block in Signal.blocks(of: input, frames: blockFrames) {
        try resampler.process(block, into: &sink)
        collect()
    }
    try resampler.finish(into: &sink)
    collect()
    return output
}

@Suite(.computing) struct ResamplerTests {
    @Test(arguments: Resampler.Engine.allCases, [44_100, 48_000])
    func keepsFrequencyAndLengthTo16k(engine: Resampler.Engine, inputRate: Int) throws {
        let format = try AudioFormat(sampleRate: inputRate, channelCount: 1)
        let tone = Signal.sine(frequency: 1_000, peakDBFS: -6, seconds: 1.5, format: format)
        let resampler = try Resampler(inputFormat: format, configuration: .init(engine: engine))
        let output = try resample(tone, with: resampler)

        #expect(output.frameCount == 24_000, "1.5 s at 16 kHz")
        let frequency = Signal.estimatedFrequency(of: output.samples[800..<23_200], sampleRate: 16_000)
        #expect(abs(frequency - 1_000) <= 1, "got \(frequency) Hz")
        // The amplitude survives too (the passband is flat at 1 kHz).
        let peak = output.samples[800..<23_200].map(abs).max() ?? 0
        #expect(abs(AudioLevel.decibels(peak) - (-6)) < 0.1)
    }

    @Test(
        arguments: Resampler.Engine.allCases,
        [(44_100, 16_000), (48_000, 8_000), (8_000, 16_000), (22_050, 16_000), (11_025, 8_000)])
    func outputLengthIsInputLengthTimesRatio(engine: Resampler.Engine, rates: (Int, Int)) throws {
        let format = try AudioFormat(sampleRate: rates.0, channelCount: 1)
        for frames in [1, 137, 10_007] {
            let input = AudioBuffer(format: format, samples: [Float](repeating: 0.1, count: frames))
            let resampler = try Resampler(
                inputFormat: format, configuration: .init(sampleRate: rates.1, engine: engine))
            let output = try resample(input, with: resampler, blockFrames: 97)
            let expected = (frames * rates.1 * 2 + rates.0) / (rates.0 * 2)
            #expect(output.frameCount == expected, "\(frames) frames at \(rates.0) → \(rates.1)")
        }
    }

    @Test(arguments: Resampler.Engine.allCases, [44_100, 48_000, 22_050])
    func filterDelayIsCompensated(engine: Resampler.Engine, inputRate: Int) throws {
        // A single click at 0.5 s must come out at 0.5 s, not one filter delay later.
        let format = try AudioFormat(sampleRate: inputRate, channelCount: 1)
        var impulse = Signal.silence(seconds: 1, format: format)
        impulse.samples[inputRate / 2] = 1
        let output = try resample(impulse, with: try Resampler(inputFormat: format, configuration: .init(engine: engine)))
        let peakIndex = output.samples.indices.max { abs(output.samples[$0]) < abs(output.samples[$1]) }!
        #expect(abs(peakIndex - 8_000) <= 1, "click at frame \(peakIndex), expected 8000")
    }

    @Test(arguments: Resampler.Engine.allCases)
    func downmixesChannelsByAveraging(engine: Resampler.Engine) throws {
        let format = try AudioFormat(sampleRate: 16_000, channelCount: 2)
        let stereo = AudioBuffer(format: format, samples: [0.5, 0.1, -0.2, 0.4], startFrame: 320)
        var resampler = try Resampler(inputFormat: format, configuration: .init(engine: engine))
        let out = try resampler.process(stereo)
        #expect(out.items.first?.samples == [0.3, 0.1])
        #expect(out.items.first?.format == .wideband)
        #expect(out.items.first?.startFrame == 320)
    }

    @Test(arguments: Resampler.Engine.allCases)
    func sixChannel48kTo16kMono(engine: Resampler.Engine) throws {
        let format = try AudioFormat(sampleRate: 48_000, channelCount: 6)
        let tone = Signal.sine(frequency: 1_000, peakDBFS: -20, seconds: 1, format: format)
        let output = try resample(tone, with: try Resampler(inputFormat: format, configuration: .init(engine: engine)))
        #expect(output.frameCount == 16_000)
        let frequency = Signal.estimatedFrequency(of: output.samples[500..<15_500], sampleRate: 16_000)
        #expect(abs(frequency - 1_000) <= 1)
    }

    @Test(arguments: Resampler.Engine.allCases)
    func stampsOutputWithTheInputsMediaTime(engine: Resampler.Engine) throws {
        let format = try AudioFormat(sampleRate: 48_000, channelCount: 1)
        let resampler = try Resampler(inputFormat: format, configuration: .init(engine: engine))
        var sink = StageOutput<AudioBuffer>()
        try resampler.process(
            AudioBuffer(format: format, samples: [Float](repeating: 0, count: 4_800), startFrame: 48_000), into: &sink)
        #expect(sink.items.first?.startTime == MediaTime(frame: 16_000, sampleRate: 16_000))
    }

    /// At the working rate the chain's input is the output, sample for sample, whichever engine is chosen.
    @Test(arguments: Resampler.Engine.allCases)
    func sixteenKilohertzInputPassesThroughUntouched(engine: Resampler.Engine) throws {
        let noise = Signal.whiteNoise(seconds: 1.3, format: .wideband, seed: 3)
        let resampler = try Resampler(inputFormat: .wideband, configuration: .init(engine: engine))
        let output = try resample(noise, with: resampler, blockFrames: 333)
        #expect(output.samples == noise.samples)
        #expect(resampler.inputLatency == 0)
    }

    @Test func rejectsBadConfiguration() throws {
        #expect(throws: EarshotError.self) { try Resampler(inputFormat: .wideband, configuration: .init(quality: 11)) }
        #expect(throws: EarshotError.self) {
            try Resampler(inputFormat: .wideband, configuration: .init(sampleRate: 0))
        }
        var resampler = try Resampler(inputFormat: .wideband)
        #expect(throws: EarshotError.self) { try resampler.process(Signal.silence(seconds: 0.1, format: .narrowband)) }
    }
}
