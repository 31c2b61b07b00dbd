import EarshotTestTraits
import Testing

@testable import EarshotServer

/// Whether a stream is live, on instants the test chooses: the audio may run at most
/// ``LivePace/allowedLead`` ahead of the clock, counted from the first audio that arrived.
@Suite(.waiting) struct LivePaceTests {
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test func audioAtTheSpeakersPaceIsLiveWhateverTheFirstChunkHolds() {
        var pace = LivePace()
        // A client that buffered 2 s before it could send: the first chunk does not count as a lead.
        pace.arrived(through: 2, at: at(0))
        for tenth in 1...100 {
            pace.arrived(through: 2 + Double(tenth) / 10, at: at(Double(tenth) / 10))
            #expect(pace.isLive)
        }
    }

    @Test func aStallThenItsBurstStaysLive() {
        var pace = LivePace()
        pace.arrived(through: 0.1, at: at(0))
        pace.arrived(through: 1, at: at(0.9))
        // Nothing for 3 s, then the 3 s held back arrive at once: caught up, not ahead.
        pace.arrived(through: 4, at: at(3.9))
        #expect(pace.isLive)
    }

    @Test func aRecordingSentAtOnceIsNotLive() {
        var pace = LivePace()
        pace.arrived(through: 0.5, at: at(0))
        pace.arrived(through: 1.4, at: at(0.01))
        #expect(pace.isLive, "0.9 s ahead: within what a client may buffer")
        pace.arrived(through: 2, at: at(0.02))
        #expect(!pace.isLive)
        pace.arrived(through: 8, at: at(0.1))
        #expect(!pace.isLive)
    }
}
