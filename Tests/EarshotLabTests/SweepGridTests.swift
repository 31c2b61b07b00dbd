import EarshotCore
import EarshotTestTraits
import EarshotTesting
import EarshotVAD
import Foundation
import Testing

@testable import EarshotLab

@Suite(.computing) struct SweepGridTests {
    @Test func productInGridOrderWithTheLastParameterFastest() throws {
        let grid = try SweepGrid(parsing: ["detector=energy,spectral", "endingSilence=0.5,0.85"])
        #expect(
            grid.settings.map(\.description) == [
                "detector=energy endingSilence=0.5", "detector=energy endingSilence=0.85",
                "detector=spectral endingSilence=0.5", "detector=spectral endingSilence=0.85",
            ])
    }

    @Test func rangesIncludeTheirStopAndPrintWithoutFloatNoise() throws {
        let grid = try SweepGrid(parsing: ["endingSilence=0.1:0.5:0.1"])
        #expect(
            grid.settings.map(\.description).map { $0.replacingOccurrences(of: "endingSilence=", with: "") } == [
                "0.1", "0.2", "0.3", "0.4", "0.5",
            ])
    }

    @Test func infinityDisablesALimitWhereTheSDKAllowsIt() throws {
        let grid = try SweepGrid(parsing: ["maxInitialSilence=1.5,inf"])
        #expect(grid.settings.last?[.tuning(.maxInitialSilence)] == .number(.infinity))
        #expect(
            try thrownEarshotError { _ = try SweepGrid(parsing: ["minSpeechDuration=inf"]) }?.code == .invalidParameter)
    }

    @Test(arguments: [
        ("endingSilence=-0.1", "endingSilence"),
        ("onsetThreshold=1.5", "onsetThreshold"),
        ("endingSilence=abc", "endingSilence"),
        ("endingSilence=1:0.5:0.1", "endingSilence"),
        ("endingSilence=0:1:0", "endingSilence"),
        ("bogus=1", "bogus"),
        ("endingSilence", "NAME="),
        ("endingSilence=0:100000:0.0001", "too many"),
    ])
    func invalidValuesNameTheField(specification: String, expected: String) throws {
        let error = try thrownEarshotError { _ = try SweepGrid(parsing: [specification]) }
        #expect(error?.code == .invalidParameter)
        #expect(error?.message.contains(expected) == true, "\(error?.message ?? "no error")")
    }

    @Test func aParameterGivenTwiceIsRefused() throws {
        let error = try thrownEarshotError { _ = try SweepGrid(parsing: ["endingSilence=1", "endingSilence=2"]) }
        #expect(error?.message.contains("twice") == true)
    }
}

@Suite(.computing) struct ParetoFrontTests {
    @Test func dominatedPointsAreOffTheFront() {
        let points: [(x: Double?, y: Double?)] = [
            (0.3, 0.10),  // fast, many truncations: on the front
            (0.5, 0.02),  // on the front
            (0.6, 0.02),  // dominated by (0.5, 0.02)
            (0.9, 0.00),  // on the front
            (1.0, 0.05),  // dominated
            (nil, 0.0),  // no latency measured: never on the front
        ]
        #expect(ParetoFront.membership(points) == [true, true, false, true, false, false])
    }

    /// The n log n sweep agrees with the definition, checked pair by pair, on random points with ties.
    @Test func agreesWithTheDefinitionOnRandomPoints() {
        var generator = SplitMix64(seed: 11)
        for _ in 0..<50 {
            let points: [(x: Double?, y: Double?)] = (0..<40).map { _ in
                let x = Double(Int.random(in: 0..<8, using: &generator)) / 8
                let y = Double(Int.random(in: 0..<8, using: &generator)) / 8
                return (Int.random(in: 0..<10, using: &generator) == 0 ? nil : x, y)
            }
            let definition = points.map { point -> Bool in
                guard let x = point.x, let y = point.y else { return false }
                return !points.contains { other in
                    guard let otherX = other.x, let otherY = other.y else { return false }
                    return otherX <= x && otherY <= y && (otherX < x || otherY < y)
                }
            }
            #expect(ParetoFront.membership(points) == definition)
        }
    }

    @Test func equalPointsAreAllOnTheFront() {
        #expect(ParetoFront.membership([(0.5, 0.01), (0.5, 0.01)]) == [true, true])
    }
}
