import EarshotCore
import EarshotTestTraits
import Testing

@testable import EarshotVAD

@Suite(.computing) struct DetectorKindTests {
    @Test(arguments: DetectorKind.allCases)
    func makesTheNamedDetector(kind: DetectorKind) throws {
        let models = DetectorModels(silero: try SileroFixtures.model())
        let detector = try kind.makeDetector(sampleRate: 16_000, models: models)
        #expect(detector.name == kind.rawValue)
        #expect(detector.sampleRate == 16_000)
        // The classical detectors decide 10 ms; Silero's network decides 32 ms chunks.
        #expect(detector.hopLength == (kind == .silero ? 512 : 160))
        #expect(kind.needsModel == (kind == .silero))
        #expect(!kind.summary.isEmpty)
        #expect(DetectorKind(rawValue: kind.rawValue) == kind)
    }

    @Test func sileroWithoutAModelSaysHowToInstallIt() throws {
        let error = try #require(throws: EarshotError.self) { try DetectorKind.silero.makeDetector(sampleRate: 16_000) }
        #expect(error.code == .modelUnavailable)
        #expect(error.message.contains("make models") && error.message.contains(SileroModel.environmentVariable))
    }

    @Test func spectralRefusesRatesItHasNoBandsFor() throws {
        let error = try #require(throws: EarshotError.self) {
            try DetectorKind.spectral.makeDetector(sampleRate: 44_100)
        }
        #expect(error.message.contains("sampleRate"))
        #expect(try DetectorKind.energy.makeDetector(sampleRate: 44_100).hopLength == 441)
    }
}
