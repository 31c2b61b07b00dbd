import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotVAD

/// Synthetic recordings whose pauses are known to the sample, and real LibriVox speech.
enum ChunkerSignals {
    static let rate = 16_000

    /// One piece of a script: `speech` is a run of 100 ms "syllables" (tones whose pitch and level
    /// change every syllable, which the spectral detector takes for speech as it does voiced speech),
    /// `pause` is background noise only.
    enum Piece {
        case speech(Double, gainDB: Double = 0)
        case pause(Double, noiseDB: Double = -60)
    }

    /// The script rendered over a −60 dBFS white-noise background (seeded), starting at media time
    /// `startFrame`.
    static func render(_ script: [Piece], startFrame: Int64 = 0, seed: UInt64 = 5) -> AudioBuffer {
        var random = SplitMix64(seed: seed)
        var samples: [Float] = []
        for piece in script {
            switch piece {
            case .speech(let seconds, let gainDB):
                let syllable = rate / 10
                let count = Int(seconds * Double(rate))
                var index = 0
                while index < count {
                    let frequency = 150 + Double(random.next() % 2_000)
                    let level = pow(10, (gainDB - 14 - Double(random.next() % 10)) / 20)
                    for n in 0..<min(syllable, count - index) {
                        let envelope = sin(Double.pi * Double(n) / Double(syllable))
                        let harmonic =
                            sin(2 * Double.pi * frequency * Double(n) / Double(rate))
                            + 0.5 * sin(4 * Double.pi * frequency * Double(n) / Double(rate))
                        samples.append(Float(level * envelope * harmonic) + noise(-60, &random))
                    }
                    index += syllable
                }
            case .pause(let seconds, let noiseDB):
                for _ in 0..<Int(seconds * Double(rate)) { samples.append(noise(noiseDB, &random)) }
            }
        }
        return AudioBuffer(format: .wideband, samples: samples, startFrame: startFrame)
    }

    private static func noise(_ dB: Double, _ random: inout SplitMix64) -> Float {
        Float(pow(10, dB / 20) * 1.732) * Float.random(in: -1...1, using: &random)
    }

    /// Runs `chunker` over `buffer` fed in `blocks` (sizes repeat), and returns the segments.
    static func chunks(
        _ buffer: AudioBuffer, configuration: UtteranceChunkerConfiguration, blocks: [Int] = [4096]
    ) throws -> [UtteranceChunk] {
        let chunker = try UtteranceChunker(configuration: configuration)
        var output = StageOutput<UtteranceChunk>()
        var first = 0, turn = 0
        while first < buffer.frameCount {
            let last = min(first + blocks[turn % blocks.count], buffer.frameCount)
            try chunker.process(
                AudioBuffer(
                    format: buffer.format, samples: Array(buffer.samples[first..<last]),
                    startFrame: buffer.startFrame + Int64(first)), into: &output)
            first = last
            turn += 1
        }
        try chunker.finish(into: &output)
        return output.items
    }

    static func seconds(_ time: MediaTime, from origin: Int64 = 0) -> Double {
        Double(time.frame - origin) / Double(rate)
    }
}

@Suite(.computing) struct UtteranceChunkerTests {
    /// The segments tile `buffer` exactly and none is longer than the maximum.
    private func expectTiling(_ chunks: [UtteranceChunk], of buffer: AudioBuffer, max: Double) {
        #expect(chunks.first?.start == buffer.startTime)
        #expect(chunks.last?.end == buffer.endTime)
        for (previous, next) in zip(chunks, chunks.dropFirst()) { #expect(previous.end == next.start) }
        for chunk in chunks {
            #expect(chunk.audio.duration <= max + 1e-9)
            let offset = Int(chunk.audio.startFrame - buffer.startFrame)
            #expect(chunk.audio.samples[...] == buffer.samples[offset..<offset + chunk.audio.frameCount])
        }
    }

    @Test func cutsAtTheQuietestPointOfTheLongestPauseInTheWindow() throws {
        // Pauses of 0.3, 0.8 and 0.2 s in a 10 s window; the 0.8 s one has a 100 ms stretch 20 dB
        // quieter at 6.5–6.6 s. The cut must fall in that stretch, 3 s of media time after the origin.
        let buffer = ChunkerSignals.render(
            [
                .speech(3), .pause(0.3), .speech(2.7), .pause(0.5), .pause(0.1, noiseDB: -80), .pause(0.2),
                .speech(2.7), .pause(0.2), .speech(4.3), .pause(1),
            ], startFrame: 48_000)
        let configuration = try UtteranceChunkerConfiguration(maxSegmentDuration: 10, minSegmentDuration: 2)
        let chunks = try ChunkerSignals.chunks(buffer, configuration: configuration)
        try #require(chunks.count == 2)
        let cutTime = ChunkerSignals.seconds(chunks[0].end, from: 48_000)
        #expect(cutTime > 6.5 && cutTime < 6.6, "cut at \(cutTime) s")
        #expect(chunks[0].cut == .pause && chunks[1].cut == .endOfInput)
        #expect(chunks.allSatisfy { $0.containsSpeech })
        expectTiling(chunks, of: buffer, max: 10)
    }

    @Test func usesAPauseBeforeTheMinimumRatherThanCutSpeech() throws {
        // One pause, at 1.0–1.5 s, before the 5 s minimum; after it, 18.5 s of speech with one stretch
        // 15 dB quieter at 8.0–8.2 s: the second cut is forced and must fall in that stretch.
        let buffer = ChunkerSignals.render(
            [.speech(1), .pause(0.5), .speech(6.5), .speech(0.2, gainDB: -15), .speech(11.8)])
        let configuration = try UtteranceChunkerConfiguration(maxSegmentDuration: 10, minSegmentDuration: 5)
        let chunks = try ChunkerSignals.chunks(buffer, configuration: configuration)
        try #require(chunks.count >= 3)
        let first = ChunkerSignals.seconds(chunks[0].end), second = ChunkerSignals.seconds(chunks[1].end)
        #expect(chunks[0].cut == .pause && first > 1.0 && first < 1.5, "first cut at \(first) s")
        #expect(chunks[1].cut == .noPause && second >= 8.0 && second <= 8.2, "second cut at \(second) s")
        expectTiling(chunks, of: buffer, max: 10)
    }

    @Test func backgroundAloneIsCutInItsQuietestHopsAndHoldsNoSpeech() throws {
        let buffer = ChunkerSignals.render([.pause(62)])
        let chunks = try ChunkerSignals.chunks(buffer, configuration: try UtteranceChunkerConfiguration())
        // Every hop is pause, so each cut is at the quietest hop 5–25 s into its segment.
        #expect(chunks.dropLast().allSatisfy { $0.audio.duration >= 5 && $0.cut == .pause })
        #expect(chunks.allSatisfy { !$0.containsSpeech })
        expectTiling(chunks, of: buffer, max: 25)
    }

    /// Real speech, fed whole, in 160-frame blocks and in blocks of random sizes: identical segments.
    @Test func blockSizesDoNotChangeTheSegments() throws {
        var random = SplitMix64(seed: 11)
        var script: [ChunkerSignals.Piece] = []
        for _ in 0..<12 {
            script.append(.speech(1 + Double(random.next() % 40) / 10))
            script.append(.pause(0.2 + Double(random.next() % 10) / 10))
        }
        let synthetic = ChunkerSignals.render(script)
        var speech = try VADFixtures.clips().flatMap(\.samples)
        speech += synthetic.samples + speech
        let buffer = AudioBuffer(format: .wideband, samples: speech, startFrame: 12_345)
        let configuration = try UtteranceChunkerConfiguration(maxSegmentDuration: 8, minSegmentDuration: 2)
        let whole = try ChunkerSignals.chunks(buffer, configuration: configuration, blocks: [buffer.frameCount])
        let randomSizes = (0..<50).map { _ in 1 + Int(random.next() % 9_000) }
        for blocks in [[160], [4410, 1, 31], randomSizes] {
            let other = try ChunkerSignals.chunks(buffer, configuration: configuration, blocks: blocks)
            #expect(other.map(\.start) == whole.map(\.start))
            #expect(other.map(\.end) == whole.map(\.end))
            #expect(other.map(\.cut) == whole.map(\.cut))
            #expect(other.map(\.speech) == whole.map(\.speech))
        }
        #expect(whole.count >= 10)
        #expect(whole.filter { $0.cut == .pause }.count == whole.count - 1, "real speech has pauses in every 8 s")
        expectTiling(whole, of: buffer, max: 8)
    }

    @Test func holdsAtMostOneWindowWhateverTheBufferSize() throws {
        let buffer = ChunkerSignals.render([.speech(40), .pause(2), .speech(30)])
        let configuration = try UtteranceChunkerConfiguration(maxSegmentDuration: 10)
        let chunker = try UtteranceChunker(configuration: configuration)
        var output = StageOutput<UtteranceChunk>()
        try chunker.process(buffer, into: &output)
        // 10 s, plus the smoother's delay (0.36 s), plus one slice of 4096 samples, plus one hop.
        #expect(chunker.heldFrames <= 160_000 + 5_760 + 4_096 + 160)
        // 72 s fed, up to ~71.6 s decided: at least 7 segments are out, one of them cut in the pause.
        #expect(output.items.count >= 7)
        #expect(output.items.contains { $0.cut == .pause && (40...42).contains(ChunkerSignals.seconds($0.end)) })
    }

    @Test func rejectsGapsAndOtherFormats() throws {
        let chunker = try UtteranceChunker(configuration: try UtteranceChunkerConfiguration())
        var output = StageOutput<UtteranceChunk>()
        try chunker.process(Signal.silence(seconds: 0.1, format: .wideband), into: &output)
        let gap = Signal.silence(seconds: 0.1, format: .wideband, startFrame: 1_700)
        let error = try #require(throws: EarshotError.self) { try chunker.process(gap, into: &output) }
        #expect(error.message.contains("starts at frame 1700, expected 1600"))
        #expect(throws: EarshotError.self) {
            try chunker.process(Signal.silence(seconds: 0.1, format: .narrowband, startFrame: 1_600), into: &output)
        }
    }

    @Test func configurationNamesTheBadField() throws {
        let cases: [(() throws -> UtteranceChunkerConfiguration, String)] = [
            ({ try UtteranceChunkerConfiguration(maxSegmentDuration: .infinity) }, "maxSegmentDuration"),
            ({ try UtteranceChunkerConfiguration(maxSegmentDuration: 0.1) }, "maxSegmentDuration"),
            ({ try UtteranceChunkerConfiguration(minSegmentDuration: 25) }, "minSegmentDuration"),
            ({ try UtteranceChunkerConfiguration(minSegmentDuration: -1) }, "minSegmentDuration"),
            ({ try UtteranceChunkerConfiguration(fallbackWindow: 0) }, "fallbackWindow"),
        ]
        for (make, field) in cases {
            let error = try #require(throws: EarshotError.self) { try make() }
            #expect(error.code == .invalidParameter && error.message.hasPrefix(field + ":"), "\(error.message)")
        }
        let defaults = try UtteranceChunkerConfiguration()
        #expect(defaults.maxSegmentDuration == 25 && defaults.minSegmentDuration == 5 && defaults.detector == .spectral)
    }
}
