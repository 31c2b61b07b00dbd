import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// Smoothing settings default to Silero's and are checked at init, naming the field.
@Suite(.computing)
struct SmoothingConfigurationTests {
    @Test func defaultsAreSileros() throws {
        let configuration = try SmoothingConfiguration()
        #expect(configuration.onsetThreshold == 0.5)
        #expect(configuration.offsetThreshold == 0.35)
        #expect(configuration.minSpeechDuration == 0.25)
        #expect(configuration.minSilenceDuration == 0.1)
        #expect(configuration.speechPadBefore == 0.03)
        #expect(configuration.speechPadAfter == 0.03)
        #expect(configuration.hangover == 0.05)
    }

    @Test func offsetAboveOnsetIsRejected() throws {
        let error = try thrownEarshotError { _ = try SmoothingConfiguration(onsetThreshold: 0.5, offsetThreshold: 0.6) }
        #expect(error?.code == .invalidParameter)
        #expect(error?.message == "offsetThreshold: expected a probability ≤ onsetThreshold (0.5), got 0.6")
        // Equal thresholds are plain thresholding, which is allowed.
        _ = try SmoothingConfiguration(onsetThreshold: 0.5, offsetThreshold: 0.5)
    }

    @Test(arguments: [Float(-0.1), 1.5, .nan])
    func thresholdOutsideZeroToOneIsRejected(value: Float) throws {
        let onset = try thrownEarshotError { _ = try SmoothingConfiguration(onsetThreshold: value, offsetThreshold: 0) }
        #expect(onset?.code == .invalidParameter)
        #expect(onset?.message.hasPrefix("onsetThreshold: expected a probability in [0, 1], got ") == true)
        let offset = try thrownEarshotError { _ = try SmoothingConfiguration(offsetThreshold: value) }
        #expect(offset?.message.hasPrefix("offsetThreshold: expected a probability in [0, 1], got ") == true)
    }

    @Test(arguments: ["minSpeechDuration", "minSilenceDuration", "speechPadBefore", "speechPadAfter", "hangover"])
    func badDurationIsNamed(field: String) throws {
        for value in [-1, Double.infinity, .nan] {
            let error = try thrownEarshotError { _ = try Self.configuration(setting: field, to: value) }
            #expect(error?.code == .invalidParameter)
            #expect(
                error?.message == "\(field): expected a finite duration ≥ 0 s, got \(ParameterCheck.describe(value))")
        }
        #expect(try Self.configuration(setting: field, to: 0) != SmoothingConfiguration())
    }

    @Test func negativeDurationMessageReadsAsAWholeNumber() throws {
        let error = try thrownEarshotError { _ = try SmoothingConfiguration(hangover: -1) }
        #expect(error?.message == "hangover: expected a finite duration ≥ 0 s, got -1")
    }

    static func configuration(setting field: String, to value: Double) throws -> SmoothingConfiguration {
        switch field {
        case "minSpeechDuration": try SmoothingConfiguration(minSpeechDuration: value)
        case "minSilenceDuration": try SmoothingConfiguration(minSilenceDuration: value)
        case "speechPadBefore": try SmoothingConfiguration(speechPadBefore: value)
        case "speechPadAfter": try SmoothingConfiguration(speechPadAfter: value)
        default: try SmoothingConfiguration(hangover: value)
        }
    }
}
