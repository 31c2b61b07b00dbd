import EarshotTesting
import EarshotTestTraits
import Testing

/// Replays the `grammar` fuzz target's seeds and saved findings (`Fuzz/corpus/grammar/`,
/// `Fuzz/regressions/grammar/`) through ``GrammarFuzzEntry``: each must be parsed or refused with an
/// `EarshotError`, never crash, hang or break the entry's checks.
@Suite(.computing) struct GrammarFuzzRegressionTests {
    @Test func seedsArePresent() {
        #expect(FuzzInputs.files("grammar").contains("corpus/grammar/cards.grxml"))
    }

    @Test(arguments: FuzzInputs.files("grammar"))
    func replay(file: String) throws {
        try GrammarFuzzEntry.run(try FuzzInputs.bytes(file))
    }
}
