import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotVAD

@Suite(.computing) struct VADFrameTests {
    @Test func frameEndIsStartPlusHop() {
        let frame = VADFrame(start: MediaTime(frame: 320, sampleRate: 16000), frameCount: 160, probability: 0.5)
        #expect(frame.end == MediaTime(frame: 480, sampleRate: 16000))
    }
}
