import EarshotServer
import EarshotTestTraits
import Testing

@Suite(.waiting)
struct SpeechContextTests {
    @Test(arguments: SpeechContext.allCases)
    func namesParseWhateverTheirCase(_ context: SpeechContext) {
        #expect(SpeechContext(header: context.rawValue) == context)
        #expect(SpeechContext(header: " " + context.rawValue.uppercased()) == context)
    }

    @Test func unknownNamesAreRefused() {
        #expect(SpeechContext(header: "Dictation") == nil)
        #expect(SpeechContext(header: "") == nil)
    }
}
