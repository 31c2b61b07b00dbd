import EarshotTesting
import EarshotTestTraits
import Testing

/// Replays the `wav` fuzz target's seeds and saved findings through ``WAVHeaderCheckFuzzEntry``: each
/// must pass or be refused with an `EarshotError`, never crash or hang.
@Suite(.computing) struct WAVHeaderCheckFuzzRegressionTests {
    @Test func seedsArePresent() {
        #expect(FuzzInputs.files("wav").contains("corpus/wav/sine-16k.wav"))
    }

    @Test(arguments: FuzzInputs.files("wav"))
    func replay(file: String) throws {
        try WAVHeaderCheckFuzzEntry.run(try FuzzInputs.bytes(file))
    }
}
