import EarshotTestTraits
import Testing

@testable import EarshotVAD

@Suite(.computing) struct LongTermVariabilityTests {
    /// Feeds `frames` rows of band powers and returns the last LTSV.
    static func ltsv(_ frames: [[Float]], window: Int = 30) -> Float {
        let measure = LongTermVariability(bandCount: frames[0].count, window: window)
        var last: Float = 0
        for frame in frames {
            var powers = frame
            last = powers.withUnsafeMutableBufferPointer { measure.push($0.baseAddress!) }
        }
        return last
    }

    @Test func steadyEnergyInEveryBandHasNoVariability() {
        #expect(Self.ltsv(Array(repeating: [Float](repeating: 3, count: 8), count: 60)) < 1e-6)
    }

    @Test func energyMovingBetweenBandsIsVariable() {
        // Like syllables: half the bands loud for 5 frames, then quiet while the other half is loud,
        // with some bands steady throughout.
        let frames = (0..<60).map { frame -> [Float] in
            let low = (frame / 5) % 2 == 0
            return (0..<8).map { band in band >= 6 ? 1 : ((band < 3) == low ? 100 : 0.01) }
        }
        // Six bands hold their energy in 15 of 30 frames (entropy ≈ log 15), two in all 30 (log 30):
        // variance = ¾·¼·(log 2)² ≈ 0.090, above the detector's speech threshold of 0.05.
        let expected = Float(0.75 * 0.25 * 0.693_147 * 0.693_147)
        #expect(abs(Self.ltsv(frames) - expected) < 0.002)
        #expect(Self.ltsv(frames) > SpectralDetector.variabilityThreshold)
    }

    @Test func itDoesNotDependOnLevel() {
        var generator = SystemRandomNumberGenerator()
        let frames = (0..<50).map { _ in (0..<8).map { _ in Float.random(in: 0.1...10, using: &generator) } }
        let quiet = Self.ltsv(frames)
        let loud = Self.ltsv(frames.map { $0.map { $0 * 1e4 } })
        #expect(abs(quiet - loud) < 1e-4 * max(quiet, 1e-3))
    }

    @Test func onlyTheWindowCounts() {
        // Variable frames long ago, then a full window of steady ones: the old variability is gone,
        // also after the periodic exact recomputation of the running sums.
        let variable = (0..<45).map { frame in (0..<8).map { band in Float((frame + band) % 3 == 0 ? 50 : 1) } }
        let steady = Array(repeating: [Float](repeating: 2, count: 8), count: 30)
        #expect(Self.ltsv(variable + steady) < 1e-6)
    }
}
