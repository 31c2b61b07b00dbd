import EarshotCore
import EarshotLab
import EarshotTestTraits
import EarshotTesting
import Testing

@testable import EarshotRecognizer

/// The `--decoder` presets: what each hands PocketSphinx, and that the fastest still recognizes speech.
@Suite(.computing)
struct PocketSphinxPresetTests {
    /// The search flags of `preset`, as PocketSphinx receives them.
    static func flags(_ preset: PocketSphinxConfiguration.Preset) -> [String: String] {
        let arguments = PocketSphinxConfiguration(preset: preset).arguments
        return Dictionary(
            uniqueKeysWithValues: stride(from: 0, to: arguments.count, by: 2).map { (arguments[$0], arguments[$0 + 1]) }
        )
    }

    @Test func accurateIsPocketSphinxsOwnSearch() {
        // The defaults of pocketsphinx 5prealpha's cmdln_macro.h.
        let flags = Self.flags(.accurate)
        #expect(flags["-beam"] == "1e-48" && flags["-wbeam"] == "7e-29")
        #expect(flags["-maxhmmpf"] == "30000" && flags["-ds"] == "1" && flags["-topn"] == "4")
        #expect(flags["-pl_window"] == "5" && flags["-pl_beam"] == "1e-10")
        #expect(flags["-fwdflat"] == "no" && flags["-remove_silence"] == "no")
    }

    @Test func presetsMapToTheirMeasuredSettings() {
        #expect(PocketSphinxConfiguration.Preset.default == .balanced)
        #expect(PocketSphinxConfiguration() == PocketSphinxConfiguration(preset: .balanced))
        // The front's choices: fewer active HMMs (and for fast, two Gaussians, scored every other frame);
        // the beams stay PocketSphinx's.
        let balanced = Self.flags(.balanced)
        #expect(balanced["-maxhmmpf"] == "5000" && balanced["-ds"] == "1" && balanced["-topn"] == "4")
        let fast = Self.flags(.fast)
        #expect(fast["-maxhmmpf"] == "1000" && fast["-ds"] == "2" && fast["-topn"] == "2")
        for flags in [balanced, fast] {
            #expect(flags["-beam"] == "1e-48" && flags["-wbeam"] == "7e-29" && flags["-pl_window"] == "5")
        }
        #expect(Set(PocketSphinxConfiguration.Preset.allCases.map { Self.flags($0) }).count == 3)
        for preset in PocketSphinxConfiguration.Preset.allCases {
            #expect(throws: Never.self) { try PocketSphinxConfiguration(preset: preset).validateSearch() }
        }
    }

    @Test func applyingAPresetKeepsTheModelAndTheFrontEnd() {
        var configuration = PocketSphinxConfiguration(modelDirectory: "/opt/model", preset: .accurate)
        configuration.flatPass = true
        let fast = configuration.applying(.fast)
        #expect(fast.acousticModel == "/opt/model/en-us" && fast.dictionary == "/opt/model/cmudict-en-us.dict")
        #expect(fast.flatPass)
        var expected = PocketSphinxConfiguration(modelDirectory: "/opt/model", preset: .fast)
        expected.flatPass = true
        #expect(fast == expected)
    }

    @Test func fastStillRecognizesALibriVoxClip() throws {
        let clip = try RecognizerFixtures.clip(RecognizerFixtures.longClipID)
        let recognizer = try PocketSphinxRecognizer(configuration: .default(preset: .fast))
        let result = try RecognizerFixtures.recognize(
            try RecognizerFixtures.audio(of: clip), blockFrames: 4096, with: recognizer)
        let score = WordErrorRate(reference: clip.transcript, hypothesis: result.text)
        print("fast preset on \(clip.id): \(score)\n  hyp: \(result.text)")
        // Measured: 21 words, 7 of the 22 reference words right (WER 0.727; the fast preset loses words).
        let words = try #require(result.hypotheses.first?.words)
        #expect(words.count >= 15)
        #expect(words.allSatisfy { $0.start < $0.end && $0.end <= result.end.seconds })
        #expect(score.referenceWordCount - score.substitutions - score.deletions >= 5)
    }
}
