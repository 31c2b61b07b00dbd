import EarshotCore
import EarshotRecognizer
import EarshotTesting
import EarshotTestTraits
import Testing

/// The stage emits exactly one final result, at `finish`, whatever the stream held.
@Suite(.computing)
struct RecognizerStageTests {
    @Test func emitsOneResultAtFinish() throws {
        let audio = try RecognizerFixtures.audio(of: RecognizerFixtures.clip(RecognizerFixtures.shortClipID))
        var stage = RecognizerStage(recognizer: try PocketSphinxRecognizer())
        for block in Signal.blocks(of: audio, frames: 4096) {
            let output = try stage.process(block)
            #expect(output.items.isEmpty)
        }
        #expect(try stage.recognizer.partialResult()?.isPartial == true)
        let results = try stage.finish().items
        #expect(results.count == 1)
        #expect(results.first?.isPartial == false)
        #expect(results.first?.text.contains("young man") == true)
    }

    @Test func emptyStreamStillYieldsAnEmptyResult() throws {
        var stage = RecognizerStage(recognizer: try PocketSphinxRecognizer())
        let results = try stage.finish().items
        #expect(results.count == 1)
        #expect(results.first?.hypotheses.isEmpty == true)
    }

    @Test func wrongFormatFailsTheStage() throws {
        var stage = RecognizerStage(recognizer: try PocketSphinxRecognizer())
        let error = #expect(throws: EarshotError.self) {
            try stage.process(Signal.silence(seconds: 0.5, format: .narrowband))
        }
        #expect(error?.code == .unsupportedFormat)
    }
}
