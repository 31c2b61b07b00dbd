import EarshotTestTraits
import EarshotTesting
import Foundation
import Testing

@testable import EarshotWhisper

/// Replays the `whispermodel` fuzz target's seeds and saved findings (`Fuzz/corpus/whispermodel/`,
/// `Fuzz/regressions/whispermodel/`) through ``WhisperModelFuzzEntry``: each must load or be refused
/// with an error naming the file, never crash.
@Suite(.computing) struct WhisperModelFuzzRegressionTests {
    @Test func theSeedsAreTheToyModelsTheTestsWrite() throws {
        #expect(try FuzzInputs.bytes("corpus/whispermodel/tiny-float16.bin") == TinyModelFile.bytes(type: .float16))
        #expect(try FuzzInputs.bytes("corpus/whispermodel/tiny-float32.bin") == TinyModelFile.bytes(type: .float32))
    }

    @Test(arguments: FuzzInputs.files("whispermodel"))
    func replay(file: String) throws {
        try WhisperModelFuzzEntry.run(try FuzzInputs.bytes(file))
    }
}
