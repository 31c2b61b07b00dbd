import EarshotCore
import EarshotIO
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotVAD

/// Live/offline parity for the whole chain a session runs — detector, smoother, endpointer: a file fed
/// whole, in random-sized blocks, or paced like a microphone gives the same decisions and the same
/// events at the same media times, exactly.
@Suite(.computing) struct ChainParityTests {
    /// A chain ending on silence early enough to endpoint inside the clip, so every event kind occurs.
    static func chain(_ kind: DetectorKind) throws -> some AudioStage<AudioBuffer, VADDecision> {
        let detector = try kind.makeDetector(sampleRate: 16_000)
        let smoother = try DecisionSmoother(
            configuration: SmoothingConfiguration(), sampleRate: 16_000, hopLength: detector.hopLength)
        let endpointer = try EndpointerConfiguration(endingSilence: 0.3)
        return try VADStage(detector: detector).then(smoother)
            .then(EndpointerStage(configuration: endpointer, start: .zero(sampleRate: 16_000)))
    }

    static func run<Source: AudioSource>(_ kind: DetectorKind, _ source: inout Source) throws
        -> (decisions: [VADDecision], events: [StageEvent])
    {
        var stage = try chain(kind)
        var decisions: [VADDecision] = []
        var events: [StageEvent] = []
        try Pipeline.run(&source, through: &stage) { output in
            decisions += output.items
            events += output.events
        }
        return (decisions, events)
    }

    static let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("corpora/synthetic/sample/audio/syn-015.wav").path

    /// Serves a list of buffers as a source.
    struct Blocks: AudioSource {
        var blocks: [AudioBuffer]
        var format: AudioFormat { .wideband }
        mutating func read() throws -> AudioBuffer? { blocks.isEmpty ? nil : blocks.removeFirst() }
    }

    @Test(arguments: [DetectorKind.energy, .spectral])
    func wholeBlockedAndPacedGiveTheSameEvents(kind: DetectorKind) throws {
        // A committed corpus sample: speech with pauses inside, then 3 s of noise floor; the 0.3 s
        // endingSilence endpoints in the first pause.
        let file = try AudioFileSource(path: Self.sample, blockFrames: 1 << 20)
        let whole = try #require(try file.read())
        var wholeSource = Blocks(blocks: [whole])
        let reference = try Self.run(kind, &wholeSource)
        let kinds = reference.events.map(\.kind)
        #expect(kinds.contains(.speechStart) && kinds.contains(.endpoint(.endingSilence)), "\(kinds)")
        #expect(kinds.last == .outcome(.audioCaptured))

        var generator = SplitMix64(seed: 7)
        var blocks: [AudioBuffer] = []
        var first = 0
        while first < whole.frameCount {
            let last = min(whole.frameCount, first + Int.random(in: 1...3_000, using: &generator))
            blocks.append(
                AudioBuffer(format: .wideband, samples: Array(whole.samples[first..<last]), startFrame: Int64(first)))
            first = last
        }
        var blocked = Blocks(blocks: blocks)
        let fromBlocks = try Self.run(kind, &blocked)
        #expect(fromBlocks.decisions == reference.decisions)
        #expect(fromBlocks.events == reference.events)

        var paced = try PacedSource(AudioFileSource(path: Self.sample, blockFrames: 480), speed: 400)
        let fromPaced = try Self.run(kind, &paced)
        #expect(fromPaced.decisions == reference.decisions)
        #expect(fromPaced.events == reference.events)
    }
}
