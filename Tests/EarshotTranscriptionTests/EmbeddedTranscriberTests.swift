import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import EarshotVAD
import Testing

@testable import EarshotTranscription

/// A file's segment goes to the recognizer whole: the recognizer is told the audio is not live, so it
/// does no live stream's early work (Whisper's settled windows and partial decodes on their own threads).
@Suite(.computing) struct EmbeddedTranscriberTests {
    /// PocketSphinx, noting what it was told of the stream's pace.
    struct PaceNoting: Recognizer {
        var inner: PocketSphinxRecognizer
        var paces: [Bool] = []

        var format: AudioFormat { inner.format }
        func startUtterance() throws { try inner.startUtterance() }
        func accept(_ buffer: AudioBuffer) throws { try inner.accept(buffer) }
        func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws { try inner.accept(buffer, frames: frames) }
        func partialResult() throws -> RecognitionResult? { try inner.partialResult() }
        func endUtterance() throws -> RecognitionResult { try inner.endUtterance() }
        func abandonUtterance() { inner.abandonUtterance() }
        func resetAdaptation() throws { try inner.resetAdaptation() }
        mutating func noteStreamPace(isLive: Bool) { paces.append(isLive) }
    }

    @Test func aSegmentIsGivenAsAudioThatIsNotLive() async throws {
        let transcriber = EmbeddedTranscriber(recognizer: PaceNoting(inner: try PocketSphinxRecognizer()))
        let audio = AudioBuffer(format: .wideband, samples: [Float](repeating: 0, count: 16_000))
        _ = try await transcriber.transcribe(UtteranceChunk(audio: audio, cut: .endOfInput, speech: []))
        #expect(transcriber.recognizer.paces == [false])
    }
}
