import EarshotCore
import EarshotCrypto
import EarshotLab
import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotWhisper

/// Our Whisper against faster-whisper 1.2.1 / CTranslate2 (float32, one thread) on the same model
/// files and the same 16 kHz samples (`Fixtures/faster-whisper-reference.json`, written by
/// `Benchmarks/whisper/reference.py`): 29 real recordings — the five LibriVox clips, the 19 of the
/// `real` corpus (LibriVox, cards, goforward, the ALSA voice prompts), two clips brought from 8 kHz and
/// from 44.1 kHz by Earshot's resampler, and 41 s of LibriVox that takes two windows.
///
/// Greedy and beam 5, each must give the reference's tokens, segment times and word times exactly;
/// log-probabilities and word probabilities agree to the tolerances below (float32 sums in another
/// order). The encoder's output matches at sampled frames.
@Suite(.computing) struct WhisperParityTests {
    static let clipNames: [String] = (try? WhisperFixtures.reference.get().clips.map(\.name)) ?? []

    /// Where each clip's audio is rebuilt: LibriVox from pocketsphinx-testdata, the real corpus built
    /// from its recipe, the resampled and joined clips by sox and `earshot encode`, as the script did.
    static let audio = Task<[String: String], any Error> {
        // Under the build folder, made afresh each run (a static has no teardown to remove a temporary one).
        let folder = WhisperFixtures.repository.appendingPathComponent(".build/whisper-parity-audio").path
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func file(_ name: String) -> String { folder + "/" + name }
        let librivox = "/usr/share/pocketsphinx/test/data/librivox/"
        var paths: [String: String] = [:]
        let names = ["0870", "0880", "0890", "0920", "0930"].map { "sense_and_sensibility_01_austen_64kb-\($0).wav" }
        for name in names { paths["librivox/" + name] = librivox + name }
        let corpus = try await CorpusBuilder.build(
            .real, options: RecipeOptions(seed: 1, scratch: folder), into: file("real"))
        for entry in corpus.entries { paths["real/" + entry.path] = corpus.audioPath(of: entry) }
        for name in [names[0], names[3]] {
            let stem = String(name.dropLast(4))
            for rate in [8000, 44100] {
                let other = file("\(stem)-\(rate).wav")
                let back = file("\(stem)-\(rate)-16k.wav")
                try require(ExternalTool.run(["sox", "-D", librivox + name, "-r", "\(rate)", other]))
                try require(
                    ExternalTool.run([
                        ExternalTool.earshotPath, "encode", "--format", "wav", "--output-rate", "16000", other, back,
                    ]))
                paths["resampled/\(stem)-\(rate).wav"] = back
            }
        }
        let joined = file("joined.wav")
        try require(ExternalTool.run(["sox", "-D"] + (names + names).map { librivox + $0 } + [joined]))
        paths["joined/librivox-x2.wav"] = joined
        return paths
    }

    static func require(_ result: ExternalTool.Result) throws {
        guard result.status == 0 else {
            throw EarshotError(.invalidInput, "a helper command failed: \(result.standardError)")
        }
    }

    func clip(_ name: String) async throws -> (WhisperFixtures.Reference.Clip, [Float]) {
        let reference = try #require(try WhisperFixtures.reference.get().clips.first { $0.name == name })
        let path = try #require(try await Self.audio.value[name], "no audio rebuilt for \(name)")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let digest = SHA256.hash(data).hexadecimal
        try #require(
            digest == reference.sha256,
            "\(name): the rebuilt audio differs from the reference's; rerun Benchmarks/whisper/reference.py")
        return (reference, try WhisperFixtures.samples(path))
    }

    func compare(_ ours: [WhisperSegment], _ theirs: [WhisperFixtures.Reference.Segment], _ what: String) {
        #expect(ours.map(\.tokens) == theirs.map(\.tokens), "\(what): tokens")
        #expect(ours.map(\.text) == theirs.map(\.text), "\(what): text")
        for (a, b) in zip(ours, theirs) {
            #expect(
                abs(a.start - b.start) < 1e-6 && abs(a.end - b.end) < 1e-6,
                "\(what): \(a.start)–\(a.end) vs \(b.start)–\(b.end)")
            #expect(
                abs(a.averageLogProbability - b.avg_logprob) < 2e-4,
                "\(what): avg_logprob \(a.averageLogProbability) vs \(b.avg_logprob)")
            #expect(abs(a.noSpeechProbability - b.no_speech_prob) < 2e-4, "\(what): no_speech_prob")
            #expect(a.temperature == b.temperature, "\(what): temperature")
            #expect(a.words.map(\.word) == b.words.map(\.[0].text), "\(what): words")
            for (w, r) in zip(a.words, b.words) {
                #expect(
                    abs(w.start - r[1].number) < 1e-6 && abs(w.end - r[2].number) < 1e-6,
                    "\(what): '\(w.word)' at \(w.start)–\(w.end) vs \(r[1].number)–\(r[2].number)")
                #expect(
                    abs((w.confidence ?? -1) - r[3].number) < 2e-3,
                    "\(what): '\(w.word)' probability \(w.confidence ?? -1) vs \(r[3].number)")
            }
        }
    }

    @Test func theReferenceCoversTwentyOrMoreRealClips() async throws {
        let clips = try WhisperFixtures.reference.get().clips
        #expect(clips.count >= 20)
        #expect(clips.contains { $0.name.hasPrefix("resampled/") && $0.name.hasSuffix("-8000.wav") })
        #expect(clips.contains { $0.name.hasPrefix("resampled/") && $0.name.hasSuffix("-44100.wav") })
        #expect(clips.contains { $0.greedy.count > 2 && $0.samples > 30 * 16_000 }, "a clip longer than one window")
    }

    @Test(arguments: clipNames)
    func theFirstWindowDecodesToTheReferenceTokensGreedyAndWithBeam5(name: String) async throws {
        let (reference, samples) = try await clip(name)
        let transcriber = try WhisperTranscriber(model: try WhisperFixtures.model())
        for (beam, expected) in [(1, reference.first_window.greedy), (5, reference.first_window.beam5)] {
            let ours = try samples.withUnsafeBufferPointer {
                try transcriber.decodeFirstWindow($0, options: WhisperOptions(beamSize: beam))
            }
            compare(ours, expected, "\(name) beam \(beam)")
        }
    }

    /// One window decoded once against the reference's: the same tokens, the score and the no-speech
    /// probability within 1e-4.
    func compare(
        _ ours: (hypothesis: WhisperSearch.Hypothesis, noSpeechProbability: Float),
        _ expected: WhisperFixtures.Reference.Decode, _ what: String
    ) {
        #expect(ours.hypothesis.tokens == expected.tokens, "\(what): tokens")
        #expect(
            abs(Double(ours.hypothesis.score) - expected.score) < 1e-4,
            "\(what): score \(ours.hypothesis.score) vs \(expected.score)")
        #expect(
            abs(Double(ours.noSpeechProbability) - expected.no_speech_prob) < 1e-4, "\(what): no-speech probability")
    }

    /// Whole transcripts: where faster-whisper never fell back to sampling, every segment and word; where
    /// it did (CTranslate2 samples from an unseeded generator, so no two runs need agree), that we fell
    /// back too, from the same temperature-0 decode.
    @Test(arguments: clipNames)
    func transcriptsMatchFasterWhisperGreedyAndWithBeam5(name: String) async throws {
        let (reference, samples) = try await clip(name)
        let transcriber = try WhisperTranscriber(model: try WhisperFixtures.model())
        for (beam, expected) in [(1, reference.greedy), (5, reference.beam5)] {
            let ours = try samples.withUnsafeBufferPointer {
                try transcriber.transcribe($0, options: WhisperOptions(beamSize: beam))
            }
            if expected.contains(where: { $0.temperature > 0 }) {
                #expect(ours.first.map { $0.temperature > 0 } ?? false, "\(name) beam \(beam): the reference fell back")
            } else {
                compare(ours, expected, "\(name) beam \(beam)")
            }
        }
    }

    @Test func mostClipsNeedNoFallbackSoTheirWholeTranscriptsAreCompared() async throws {
        let clips = try WhisperFixtures.reference.get().clips
        let compared = clips.filter { !($0.greedy + $0.beam5).contains { $0.temperature > 0 } }
        #expect(compared.count >= 20, "\(compared.count) of \(clips.count)")
    }

    @Test(arguments: clipNames.prefix(2))
    func theEncoderOutputMatchesCTranslate2(name: String) async throws {
        let (reference, samples) = try await clip(name)
        let expected = try #require(reference.encoder)
        let model = try WhisperFixtures.model()
        let (frames, features) = samples.withUnsafeBufferPointer { LogMelSpectrogram(melBins: 80)($0) }
        var window = [Float](repeating: 0, count: 3000 * 80)
        window.replaceSubrange(0..<(min(frames - 1, 3000) * 80), with: features[0..<(min(frames - 1, 3000) * 80)])
        let encoder = WhisperEncoder(model: model)
        window.withUnsafeBufferPointer { encoder.encode($0.baseAddress!) }
        var worst: Float = 0
        var squares: Double = 0
        var errors: Double = 0
        for (frame, values) in zip(expected.frames, expected.values) {
            for (index, value) in values.enumerated() {
                let difference = encoder.output[frame * 384 + index] - value
                worst = max(worst, abs(difference))
                errors += Double(difference * difference)
                squares += Double(value * value)
            }
        }
        let relative = (errors / squares).squareRoot()
        print("\(name): encoder max |error| \(worst), relative RMS error \(relative) at frames \(expected.frames)")
        #expect(worst < 2e-3 && relative < 2e-5, "max |error| \(worst), relative RMS \(relative)")
    }
}
