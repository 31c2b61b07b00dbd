import EarshotCore
import EarshotRecognizer
import EarshotTestTraits
import Foundation
import Testing

/// Model paths are checked before PocketSphinx sees them, with errors naming the missing file.
@Suite(.computing)
struct PocketSphinxConfigurationTests {
    static let model = PocketSphinxConfiguration.debianModelDirectory

    @Test func debianModelIsTheDefaultLayout() throws {
        let configuration = PocketSphinxConfiguration()
        #expect(configuration.acousticModel == Self.model + "/en-us")
        #expect(configuration.languageModel == Self.model + "/en-us.lm.bin")
        #expect(configuration.dictionary == Self.model + "/cmudict-en-us.dict")
        #expect(PocketSphinxConfiguration(modelDirectory: Self.model) == configuration)
        try configuration.validate()
    }

    @Test(arguments: [
        PocketSphinxConfiguration(acousticModel: "/nonexistent/earshot/en-us"),
        PocketSphinxConfiguration(languageModel: "/nonexistent/earshot/en-us.lm.bin"),
        PocketSphinxConfiguration(dictionary: "/nonexistent/earshot/cmudict-en-us.dict"),
        PocketSphinxConfiguration(modelDirectory: "/nonexistent/earshot"),
    ])
    func missingModelFileIsNamed(configuration: PocketSphinxConfiguration) {
        let error = #expect(throws: EarshotError.self) { try PocketSphinxRecognizer(configuration: configuration) }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.message.contains("/nonexistent/earshot/") == true)
        #expect(error?.message.contains("pocketsphinx-en-us") == true)
    }

    @Test func acousticModelGivenAsAFileIsRejected() {
        let configuration = PocketSphinxConfiguration(acousticModel: Self.model + "/en-us.lm.bin")
        let error = #expect(throws: EarshotError.self) { try configuration.validate() }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.message.contains("acoustic model directory not found: \(Self.model)/en-us.lm.bin") == true)
    }

    @Test func acousticModelWithoutMixtureWeightsIsRejectedBeforePocketSphinxExits() throws {
        // PocketSphinx calls exit() when the mixture weights are missing, so this must be caught first.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("earshot-am-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for file in ["mdef", "means", "variances", "transition_matrices", "feat.params", "noisedict"] {
            try FileManager.default.createSymbolicLink(
                atPath: directory + "/" + file, withDestinationPath: Self.model + "/en-us/" + file)
        }
        let error = #expect(throws: EarshotError.self) {
            try PocketSphinxRecognizer(configuration: PocketSphinxConfiguration(acousticModel: directory))
        }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.message.contains(directory + "/sendump") == true)
    }

    @Test func damagedModelIsReportedNotFatal() throws {
        // Present but not a language model: PocketSphinx itself refuses it, and that too is modelUnavailable.
        let configuration = PocketSphinxConfiguration(languageModel: Self.model + "/cmudict-en-us.dict")
        let error = #expect(throws: EarshotError.self) { try PocketSphinxRecognizer(configuration: configuration) }
        #expect(error?.code == .modelUnavailable)
        #expect(error?.message.contains("could not load") == true)
    }

    @Test(arguments: [0, -1, 2, .nan])
    func beamsMustBeProbabilities(beam: Double) {
        for (name, path) in [
            ("beam", \PocketSphinxConfiguration.beam), ("wordBeam", \.wordBeam), ("lookaheadBeam", \.lookaheadBeam),
        ] {
            var configuration = PocketSphinxConfiguration()
            configuration[keyPath: path] = beam
            let error = #expect(throws: EarshotError.self) { try configuration.validate() }
            #expect(error?.code == .invalidParameter)
            #expect(error?.message.hasPrefix("\(name) is ") == true)
            #expect(error?.message.hasSuffix("expected a probability in (0, 1]") == true)
        }
    }

    @Test func countsOutOfRangeAreNamed() {
        for (name, path, value) in [
            ("maxActiveHMMs", \PocketSphinxConfiguration.maxActiveHMMs, -2),
            ("frameDownsampling", \.frameDownsampling, 0),
            ("topGaussians", \.topGaussians, 0), ("lookaheadWindow", \.lookaheadWindow, 11),
        ] {
            var configuration = PocketSphinxConfiguration()
            configuration[keyPath: path] = value
            let error = #expect(throws: EarshotError.self) { try configuration.validateSearch() }
            #expect(error?.code == .invalidParameter)
            #expect(error?.message.hasPrefix("\(name) is \(value); expected") == true)
        }
    }
}
