import EarshotTestTraits
import Testing

@testable import EarshotServer

/// The upload rules as a state machine, on instants the test chooses.
@Suite(.waiting) struct UploadPaceTests {
    let rules = UploadPace.Rules(readTimeout: .seconds(10), grace: .seconds(5), minimumAudioRate: 0.5)
    let start = ContinuousClock.now

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    @Test func silenceForTheReadTimeoutIsIdle() {
        var pace = UploadPace(rules: rules)
        pace.leased()
        pace.decoded(audioTime: 100)
        pace.startWaiting(at: at(0))
        #expect(pace.stall(at: at(9.9)) == nil)
        #expect(pace.stall(at: at(10)) == .idle(.seconds(10)))
    }

    @Test func aDribblerNeverReachesALease() {
        // One byte a second: each wait is short, but before a lease the waits may add up to the grace only.
        var pace = UploadPace(rules: rules)
        for second in 0..<5 {
            pace.startWaiting(at: at(Double(second)))
            pace.stopWaiting(at: at(Double(second) + 1))
            #expect(pace.stall(at: at(Double(second) + 1)) == nil)
        }
        pace.startWaiting(at: at(5))
        #expect(pace.stall(at: at(5.1)) == .tooSlow(waited: .milliseconds(5100), audioTime: 0, leased: false))
    }

    @Test func aLiveClientBuildsCreditAsItTalks() {
        // Real time: 0.25 s of audio after each 0.25 s wait, for a minute, then a 6 s network stall.
        var pace = UploadPace(rules: rules)
        pace.leased()
        var audio = 0.0
        for step in 0..<240 {
            pace.startWaiting(at: at(Double(step) * 0.25))
            pace.stopWaiting(at: at(Double(step + 1) * 0.25))
            audio += 0.25
            pace.decoded(audioTime: audio)
            #expect(pace.stall(at: at(Double(step + 1) * 0.25)) == nil)
        }
        pace.startWaiting(at: at(60))
        #expect(pace.stall(at: at(66)) == nil)
    }

    @Test func aClientBelowTheMinimumRateIsCutAfterItsGrace() {
        // 0.4× real time: 0.1 s of audio per 0.25 s of waiting. Allowed wait: 5 s + audio / 0.5.
        var pace = UploadPace(rules: rules)
        pace.leased()
        var audio = 0.0
        var cutAt: Double?
        for step in 0..<400 where cutAt == nil {
            let now = Double(step + 1) * 0.25
            pace.startWaiting(at: at(Double(step) * 0.25))
            pace.stopWaiting(at: at(now))
            audio += 0.1
            pace.decoded(audioTime: audio)
            if pace.stall(at: at(now)) != nil { cutAt = now }
        }
        // waited t, audio 0.4 t: t > 5 + 0.8 t ⇔ t > 25 s.
        #expect(cutAt.map { (25...25.5).contains($0) } == true, "\(String(describing: cutAt))")
    }

    @Test func timeSpentRecognizingIsNotTheClientsFault() {
        var pace = UploadPace(rules: rules)
        pace.leased()
        pace.startWaiting(at: at(0))
        pace.stopWaiting(at: at(1))
        // The service then recognizes for a minute without waiting for the client.
        #expect(pace.stall(at: at(61)) == nil)
        #expect(pace.totalWait(at: at(61)) == .seconds(1))
    }
}
