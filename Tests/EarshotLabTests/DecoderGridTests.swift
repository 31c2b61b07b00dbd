import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import Testing

@testable import EarshotLab

/// Decoder grids parse as PocketSphinx would take their values, and refuse what it would not.
@Suite(.computing)
struct DecoderGridTests {
    @Test func settingsAreTheProductInGridOrder() throws {
        let grid = try DecoderGrid(parsing: ["beam=1e-48,1e-40", "topGaussians=2,4,8"])
        #expect(
            grid.settings.map(\.description) == [
                "beam=1e-48 topGaussians=2", "beam=1e-48 topGaussians=4", "beam=1e-48 topGaussians=8",
                "beam=1e-40 topGaussians=2", "beam=1e-40 topGaussians=4", "beam=1e-40 topGaussians=8",
            ])
        #expect(grid.specification == ["beam=1e-48,1e-40", "topGaussians=2,4,8"])
    }

    @Test func aSettingSetsTheConfigurationsProperties() throws {
        let grid = try DecoderGrid(parsing: ["frameDownsampling=2", "maxActiveHMMs=-1", "lookaheadBeam=1e-20"])
        let configuration = try #require(grid.settings.first).applied(to: PocketSphinxConfiguration(preset: .accurate))
        #expect(configuration.frameDownsampling == 2 && configuration.maxActiveHMMs == -1)
        #expect(configuration.lookaheadBeam == 1e-20 && configuration.beam == 1e-48)
    }

    @Test(arguments: [
        ("beam", "decoder grid 'beam': expected NAME=V1,V2,…"),
        ("width=3", "decoder grid: unknown parameter 'width'; expected one of beam, wordBeam, maxActiveHMMs"),
        ("topGaussians=2.5", "decoder grid topGaussians: expected a whole number, got '2.5'"),
        ("beam=wide", "decoder grid beam: expected a probability such as 1e-40, got 'wide'"),
        ("beam=2", "decoder grid: beam is 2.0; expected a probability in (0, 1]"),
        ("frameDownsampling=1,,2", "decoder grid frameDownsampling: expected a whole number, got ''"),
        ("lookaheadWindow=11", "decoder grid: lookaheadWindow is 11; expected an integer from 0 (off) to 10"),
    ])
    func badSpecificationsAreNamed(specification: String, message: String) {
        let error = #expect(throws: EarshotError.self) { try DecoderGrid(parsing: [specification]) }
        #expect(error?.code == .invalidParameter)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    @Test func aParameterGivenTwiceIsRefused() {
        let error = #expect(throws: EarshotError.self) { try DecoderGrid(parsing: ["beam=1e-40", "beam=1e-30"]) }
        #expect(error?.message == "decoder grid: beam is given twice")
    }
}
