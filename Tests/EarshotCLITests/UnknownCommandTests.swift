import EarshotTesting
import EarshotTestTraits
import Testing

/// A misspelled command is a usage error that names the nearest command; a word far from every
/// command gets no guess.
@Suite(.waiting) struct UnknownCommandTests {
    @Test func aTypoGetsTheNearestCommand() throws {
        let result = try ExternalTool.run([ExternalTool.earshotPath, "transcibe", "talk.wav"])
        #expect(result.status == 1)
        #expect(result.standardError == "earshot: unknown command 'transcibe'; did you mean 'transcribe'? (earshot --help lists the commands)\n")
        #expect(result.standardOutput.isEmpty)
    }

    @Test func aWordFarFromEveryCommandGetsNoGuess() throws {
        let result = try ExternalTool.run([ExternalTool.earshotPath, "frobnicate"])
        #expect(result.status == 1)
        #expect(result.standardError.contains("unknown command 'frobnicate'") && !result.standardError.contains("did you mean"))
    }
}
