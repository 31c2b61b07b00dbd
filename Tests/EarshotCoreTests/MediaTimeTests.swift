import EarshotCore
import EarshotTestTraits
import Testing

@Suite(.computing) struct MediaTimeTests {
    @Test func comparesExactlyAcrossRates() {
        let a = MediaTime(frame: 44_100, sampleRate: 44_100)
        let b = MediaTime(frame: 16_000, sampleRate: 16_000)
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(MediaTime(frame: 16_001, sampleRate: 16_000) > a)
        #expect(MediaTime(frame: 44_099, sampleRate: 44_100) < b)
    }

    @Test func convertsRoundingToNearestFrame() {
        // 1 frame at 44.1 kHz is 0.3628 frames at 16 kHz: rounds to 0; 2 frames (0.7256) rounds to 1.
        #expect(MediaTime(frame: 1, sampleRate: 44_100).converted(to: 16_000).frame == 0)
        #expect(MediaTime(frame: 2, sampleRate: 44_100).converted(to: 16_000).frame == 1)
        #expect(MediaTime(frame: 48_000, sampleRate: 48_000).converted(to: 16_000).frame == 16_000)
        #expect(MediaTime(frame: 3, sampleRate: 16_000).seconds == 3.0 / 16_000)
    }

    @Test func advancesOnItsOwnClock() {
        #expect(MediaTime.zero(sampleRate: 8_000).advanced(by: 800).seconds == 0.1)
    }
}

@Suite(.computing) struct AudioFormatTests {
    @Test(arguments: [0, 999, 384_001, -8_000])
    func rejectsUnsupportedRates(rate: Int) {
        #expect(throws: EarshotError.self) { try AudioFormat(sampleRate: rate, channelCount: 1) }
    }

    @Test func namesTheOriginInErrors() {
        do {
            _ = try AudioFormat(sampleRate: 16_000, channelCount: 0, origin: "take.wav")
            Issue.record("expected an error")
        } catch let error as EarshotError {
            #expect(error.code == .unsupportedFormat)
            #expect(error.message.hasPrefix("take.wav: unsupported channel count 0"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func bufferReportsFramesAndTimes() throws {
        let format = try AudioFormat(sampleRate: 8_000, channelCount: 2)
        let buffer = AudioBuffer(format: format, samples: [Float](repeating: 0, count: 1_600), startFrame: 8_000)
        #expect(buffer.frameCount == 800)
        #expect(buffer.startTime.seconds == 1.0)
        #expect(buffer.endTime.seconds == 1.1)
        #expect(buffer.duration == 0.1)
    }
}

@Suite(.computing) struct PCMTests {
    @Test func everyInt16RoundTripsThroughFloat() {
        for value in Int16.min...Int16.max {
            #expect(PCM.int16(PCM.float(value)) == value)
        }
    }

    @Test func saturatesOutOfRangeFloats() {
        #expect(PCM.int16(1.5) == .max)
        #expect(PCM.int16(-1.5) == .min)
        #expect(PCM.int16(1.0) == .max)
    }
}

@Suite(.computing) struct RequireFormatTests {
    @Test func namesTheStageAndBothFormats() throws {
        let buffer = AudioBuffer(format: .narrowband, samples: [0])
        try buffer.requireFormat(.narrowband, stage: "resampler")
        do {
            try buffer.requireFormat(.wideband, stage: "AMR-NB encoder")
            Issue.record("expected an error")
        } catch let error as EarshotError {
            #expect(error.code == .unsupportedFormat)
            #expect(error.message == "AMR-NB encoder: got 8000 Hz mono; expected 16000 Hz mono (resample first)")
        }
    }
}
