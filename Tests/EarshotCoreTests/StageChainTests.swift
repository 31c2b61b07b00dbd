import EarshotCore
import EarshotTestTraits
import Testing

/// Multiplies samples by a gain and posts one level event per buffer: enough to observe composition.
private struct Gain: AudioStage {
    var gain: Float
    var finished = false

    mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        var scaled = input
        for i in scaled.samples.indices { scaled.samples[i] *= gain }
        output.post(
            StageEvent(
                time: input.startTime,
                kind: .level(AudioLevel(frameCount: input.frameCount, rmsDBFS: gain, peakDBFS: 0, clippedSamples: 0))))
        output.emit(scaled)
    }

    mutating func finish(into output: inout StageOutput<AudioBuffer>) throws { finished = true }
}

/// Holds every buffer back until `finish`, like a filter tail: checks that a chain flushes in order.
private struct HoldBack: AudioStage {
    var held: [AudioBuffer] = []

    mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
        held.append(input)
    }

    mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {
        for buffer in held { output.emit(buffer) }
        held.removeAll()
    }
}

/// Sums samples, emitting the total at the end: a stage whose output type differs from its input.
private struct Sum: AudioStage {
    var total: Float = 0
    mutating func process(_ input: AudioBuffer, into output: inout StageOutput<Float>) throws {
        total += input.samples.reduce(0, +)
    }
    mutating func finish(into output: inout StageOutput<Float>) throws { output.emit(total) }
}

@Suite(.computing) struct StageChainTests {
    let format = AudioFormat.wideband

    @Test func chainsApplyInOrderAndPassEventsOn() throws {
        var chain = Gain(gain: 2).then(Gain(gain: 3))
        let out = try chain.process(AudioBuffer(format: format, samples: [1, 2], startFrame: 5))
        #expect(out.items.map(\.samples) == [[6, 12]])
        #expect(out.items.first?.startFrame == 5)
        // The first stage's event precedes the second's for the same input.
        let gains = out.events.compactMap { event -> Float? in
            if case .level(let level) = event.kind { return level.rmsDBFS }
            return nil
        }
        #expect(gains == [2, 3])
    }

    @Test func finishFlushesTheFirstStageIntoTheSecondThenFinishesIt() throws {
        var chain = HoldBack().then(Gain(gain: 10)).then(Sum())
        _ = try chain.process(AudioBuffer(format: format, samples: [1]))
        _ = try chain.process(AudioBuffer(format: format, samples: [2], startFrame: 1))
        let nothingYet = try chain.process(AudioBuffer(format: format, samples: [3], startFrame: 2))
        #expect(nothingYet.items.isEmpty)
        let end = try chain.finish()
        #expect(end.items == [60])
        #expect(chain.first.second.finished)
    }

    @Test func reusedOutputKeepsItsStorage() throws {
        var output = StageOutput<AudioBuffer>()
        var gain = Gain(gain: 1)
        try gain.process(AudioBuffer(format: format, samples: [1]), into: &output)
        output.removeAll()
        #expect(output.items.isEmpty && output.events.isEmpty)
        #expect(output.items.capacity >= 1)
    }
}

/// One input to two stages.
@Suite(.computing) struct StageForkTests {
    let format = AudioFormat.wideband

    @Test func bothStagesGetEveryInputAndTheirOutputsAndEventsComeInOrder() throws {
        var fork = Gain(gain: 2).fork(Sum())
        let out = try fork.process(AudioBuffer(format: format, samples: [1, 2], startFrame: 0))
        #expect(out.items.compactMap(\.first).map(\.samples) == [[2, 4]])
        #expect(out.items.compactMap(\.second).isEmpty)
        _ = try fork.process(AudioBuffer(format: format, samples: [3], startFrame: 2))
        let end = try fork.finish()
        #expect(end.items.compactMap(\.second) == [6])
        #expect(fork.first.finished)
    }

    @Test func theFirstStageIsFedOnlyWhileTheSecondSaysSoAndIsStillFinished() throws {
        // The first stage stops once the second has summed more than 2, and is flushed at the end.
        var fork = HoldBack().fork(Sum()) { $0.total <= 2 }
        for (frame, sample) in [Float(1), 1, 5, 7].enumerated() {
            _ = try fork.process(AudioBuffer(format: format, samples: [sample], startFrame: Int64(frame)))
        }
        let end = try fork.finish()
        // 1 and 1 go in (the sum is 0, then 1, before them); 5 goes in with the sum at 2; 7 does not.
        #expect(end.items.compactMap(\.first).map(\.samples) == [[1], [1], [5]])
        #expect(end.items.compactMap(\.second) == [14])
    }

    @Test func aForkInsideAChainSeesEachBufferTheChainMade() throws {
        var chain = Gain(gain: 2).then(HoldBack().fork(Gain(gain: 10)))
        let out = try chain.process(AudioBuffer(format: format, samples: [1], startFrame: 0))
        #expect(out.items.compactMap(\.second).map(\.samples) == [[20]])
        let end = try chain.finish()
        #expect(end.items.compactMap(\.first).map(\.samples) == [[2]])
    }
}
