import EarshotClient
import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import EarshotWire
import Testing

@testable import EarshotServiceTranscription

/// A service's reply — here an OpenAI-compatible server's `verbose_json` — becomes a result in the
/// recording's media time, whether it gives word times, only segments, or only text.
@Suite(.computing) struct OpenAIReplyTests {
    /// A 4 s segment that starts 10 s into its recording.
    static let audio = AudioBuffer(
        format: try! AudioFormat(sampleRate: 16_000, channelCount: 1), samples: [Float](repeating: 0, count: 64_000),
        startFrame: 160_000)

    static func starts(_ result: RecognitionResult) -> [Double] {
        result.hypotheses.first?.words.map { ($0.start * 1000).rounded() / 1000 } ?? []
    }

    @Test func wordTimesLandInMediaTime() {
        let reply = OpenAITranscription.Verbose(
            language: "english", duration: 4, text: " Hello  world",
            words: [.init(word: "Hello", start: 0.5, end: 0.9), .init(word: "world", start: 1.0, end: 1.6)])
        let result = ServiceTranscriber.result(OpenAITranscriptionClient.reply(reply), audio: Self.audio)
        #expect(result.text == "Hello world")
        #expect(Self.starts(result) == [10.5, 11.0])
        #expect(result.hypotheses.first?.words.last?.end == 11.6)
    }

    @Test func withoutWordTimesEachSegmentsWordsSpreadOverIt() {
        let reply = OpenAITranscription.Verbose(
            language: "english", duration: 4, text: "one two three four",
            segments: [
                .init(id: 0, start: 0.4, end: 1.4, text: " one two"),
                .init(id: 1, start: 2.0, end: 3.0, text: " three four"),
            ])
        let result = ServiceTranscriber.result(OpenAITranscriptionClient.reply(reply), audio: Self.audio)
        #expect(Self.starts(result) == [10.4, 10.9, 12.0, 12.5])
        #expect(result.hypotheses.first?.words.last?.end == 13.0)
    }

    @Test func textAloneIsSpreadOverTheSegmentAndSilenceIsNoHypothesis() {
        let spread = ServiceTranscriber.result(RecognitionReply(text: "a b"), audio: Self.audio)
        #expect(Self.starts(spread) == [10, 12])
        let silent = ServiceTranscriber.result(RecognitionReply(text: " "), audio: Self.audio)
        #expect(silent.hypotheses.isEmpty)
    }
}
