import EarshotCore
import EarshotDSP
import EarshotTesting
import EarshotTestTraits
import Testing

private func levels(_ output: StageOutput<AudioBuffer>) -> [(MediaTime, AudioLevel)] {
    output.events.compactMap { event in
        if case .level(let level) = event.kind { return (event.time, level) }
        return nil
    }
}

@Suite(.computing) struct LevelMeterTests {
    @Test(arguments: [16_000, 44_100, 48_000])
    func sineAtMinus20dBFSMetersMinus23_01RMS(rate: Int) throws {
        let format = try AudioFormat(sampleRate: rate, channelCount: 1)
        var meter = try LevelMeter()
        var output = try meter.process(Signal.sine(frequency: 1_000, peakDBFS: -20, seconds: 1, format: format))
        let windows = levels(output)
        #expect(windows.count == 10)
        for (_, level) in windows {
            #expect(abs(level.rmsDBFS - (-23.0103)) <= 0.05)
            #expect(abs(level.peakDBFS - (-20)) <= 0.05)
            #expect(level.clippedSamples == 0)
        }
        output = try meter.finish()
        #expect(levels(output).isEmpty, "no partial window left after exactly 1 s")
        #expect(abs(meter.overall.rmsDBFS - (-23.0103)) <= 0.05)
    }

    @Test func windowsFollowMediaTimeAcrossBlockSizes() throws {
        // 11 025 Hz: 100 ms is 1 102.5 frames, so windows alternate 1 102 and 1 103 and never drift.
        let format = try AudioFormat(sampleRate: 11_025, channelCount: 2)
        let signal = Signal.sine(frequency: 300, seconds: 2.05, format: format, startFrame: 11_025)
        var meter = try LevelMeter()
        var all: [(MediaTime, AudioLevel)] = []
        for block in Signal.blocks(of: signal, frames: 777) { all += levels(try meter.process(block)) }
        all += levels(try meter.finish())
        #expect(all.count == 21)
        #expect(all.map(\.1.frameCount).prefix(4) == [1_102, 1_103, 1_102, 1_103])
        #expect(all.map(\.1.frameCount).reduce(0, +) == signal.frameCount)
        #expect(all[0].0 == MediaTime(frame: 11_025, sampleRate: 11_025), "windows start at the stream's media time")
        #expect(all[20].0.seconds == 3.0)
        #expect(all[20].1.frameCount == 551, "the last, partial window is flushed at finish")
    }

    @Test func countsClippedSamplesAndReportsSilenceAsMinusInfinity() throws {
        var meter = try LevelMeter()
        var samples = [Float](repeating: 0, count: 1_600)
        samples[10] = 1
        samples[11] = -1
        samples[12] = 0.99
        let output = try meter.process(AudioBuffer(format: .wideband, samples: samples))
        let level = try #require(levels(output).first?.1)
        #expect(level.clippedSamples == 2)
        #expect(level.peakDBFS == 0)

        var quiet = try LevelMeter()
        let silent = try #require(levels(try quiet.process(Signal.silence(seconds: 0.1, format: .wideband))).first?.1)
        #expect(silent.rmsDBFS == -.infinity && silent.peakDBFS == -.infinity)
    }

    @Test func passesAudioThroughUnchanged() throws {
        var meter = try LevelMeter()
        let input = Signal.whiteNoise(seconds: 0.25, format: .wideband)
        let output = try meter.process(input)
        #expect(output.items.map(\.samples) == [input.samples])
    }

    @Test func rejectsANonPositiveInterval() {
        #expect(throws: EarshotError.self) { try LevelMeter(configuration: .init(intervalMilliseconds: 0)) }
    }
}
