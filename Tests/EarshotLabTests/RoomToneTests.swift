import EarshotCore
import EarshotTestTraits
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct RoomToneTests {
    /// An AR(1) process x[n] = 0.9·x[n−1] + e[n]: the fitted predictor's first coefficient is ≈ 0.9 and
    /// noise made from it has the same lag-1 correlation, at the level asked for.
    @Test func shapedNoiseKeepsTheBackgroundsSpectrumAndTakesTheGivenLevel() throws {
        var random = SplitMix64(seed: 5)
        let white = NoiseGenerator.white(frames: 32_000, using: &random)
        var background = [Float](repeating: 0, count: white.count)
        for index in 1..<white.count { background[index] = 0.9 * background[index - 1] + 0.01 * white[index] }
        let coefficients = try #require(RoomTone.predictor(background))
        #expect(abs(coefficients[0] - 0.9) < 0.05)
        let noise = RoomTone.noise(frames: 32_000, coefficients: coefficients, dBFS: -50, using: &random)
        let level = 20 * log10(RecipeAudio.rms(noise[...]))
        #expect(abs(level + 50) < 0.01)
        let lag1 =
            zip(noise.dropFirst(), noise).map { Double($0 * $1) }.reduce(0, +)
            / noise.map { Double($0 * $0) }.reduce(0, +)
        #expect(abs(lag1 - 0.9) < 0.05)
    }

    @Test func digitalSilenceHasNoShape() {
        #expect(RoomTone.predictor([Float](repeating: 0, count: 16_000)) == nil)
    }

    @Test func theBackgroundIsTheQuietestFrames() {
        // 0.5 s at −60 dBFS-ish, then 0.5 s loud: only the quiet half is background.
        var random = SplitMix64(seed: 1)
        let quiet = NoiseGenerator.white(frames: 8_000, using: &random).map { $0 * 0.001 }
        let loud = NoiseGenerator.white(frames: 8_000, using: &random).map { $0 * 0.3 }
        let bank = RoomTone.background(of: quiet + loud)
        #expect(bank.count > 6_000 && bank.count <= 8_000)
        #expect(RecipeAudio.rms(bank[...]) < 0.002)
    }
}
