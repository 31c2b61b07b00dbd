import EarshotCore
import EarshotIO
import EarshotTestTraits
import EarshotTesting
import Testing

@testable import EarshotRecognizer

/// Word times in an utterance that holds a pause: two LibriVox clips with 2 s of silence between.
@Suite(.computing)
struct WordTimesAcrossPausesTests {
    @Test func wordTimesStayOnTheAudio() throws {
        let clips = try LibriVoxClips.load()
        let first = try RecognizerFixtures.audio(of: clips[1])  // "he was not an ill disposed young man", 2.99 s
        let second = try RecognizerFixtures.audio(of: clips[4])  // "he might even have been made amiable himself"
        let pause = [Float](repeating: 0, count: 32_000)
        let joined = AudioBuffer(format: .wideband, samples: first.samples + pause + second.samples, startFrame: 16_000)
        let result = try RecognizerFixtures.recognize(joined, blockFrames: 4096, with: PocketSphinxRecognizer())
        let words = try #require(result.hypotheses.first?.words)
        // Each clip's first word starts within 0.1–0.5 s of the clip's start (1 s and 1 + 2.99 + 2 s in).
        let he = try #require(words.first), might = try #require(words.first { $0.word == "might" })
        #expect(he.start > 1.1 && he.start < 1.5, "\(he)")
        #expect(might.start > 5.99 + 0.1 && might.start < 5.99 + 1.0, "\(might)")
        #expect(words.allSatisfy { $0.end <= joined.endTime.seconds && $0.start < $0.end })
    }
}
