import EarshotCore
import Testing

@testable import EarshotVAD

@Suite struct DetectorKindTests {
    @Test(arguments: DetectorKind.allCases)
    func makesTheNamedDetector(kind: DetectorKind) throws {
        let detector = try kind.makeDetector(sampleRate: 16_000)
        #expect(detector.name == kind.rawValue)
        #expect(detector.sampleRate == 16_000)
        #expect(detector.hopLength == 160)
        #expect(!kind.summary.isEmpty)
        #expect(DetectorKind(rawValue: kind.rawValue) == kind)
    }

    @Test func spectralRefusesRatesItHasNoBandsFor() throws {
        let error = try #require(throws: EarshotError.self) {
            try DetectorKind.spectral.makeDetector(sampleRate: 44_100)
        }
        #expect(error.message.contains("sampleRate"))
        #expect(try DetectorKind.energy.makeDetector(sampleRate: 44_100).hopLength == 441)
    }
}
