import EarshotCore
import EarshotTesting
import EarshotTestTraits
import Testing

@testable import EarshotVAD

/// The SDK's defaults, the infinite interval, rule sets, and errors that name the field.
@Suite(.computing)
struct EndpointerConfigurationTests {
    @Test func defaultsAreTheSDKs() throws {
        let configuration = try EndpointerConfiguration()
        #expect(configuration.maxInitialSilence == 1.5)
        #expect(configuration.endingSilence == 0.85)
        #expect(configuration.minRecordingTime == 1.0)
        #expect(configuration.maxRecordingTime == 25)
        #expect(configuration.cancelWhenSilent)
        #expect(configuration.rules.isEmpty)
        let endingSilenceRule = try EndpointRule(requiresSpeech: true, minTrailingSilence: 0.85, minUtteranceLength: 0)
        #expect(configuration.endpointRules == [endingSilenceRule])
    }

    @Test func givenRulesReplaceTheEndingSilenceRule() throws {
        let rules = [
            try EndpointRule(requiresSpeech: true, minTrailingSilence: 1.0, minUtteranceLength: 0),
            try EndpointRule(requiresSpeech: true, minTrailingSilence: 0.5, minUtteranceLength: 5),
        ]
        let configuration = try EndpointerConfiguration(endingSilence: 0.3, rules: rules)
        #expect(configuration.endpointRules == rules)
    }

    @Test func infiniteIntervalDisablesLimits() throws {
        #expect(EndpointerConfiguration.infiniteInterval == .infinity)
        let configuration = try EndpointerConfiguration(
            maxInitialSilence: EndpointerConfiguration.infiniteInterval,
            endingSilence: EndpointerConfiguration.infiniteInterval,
            maxRecordingTime: EndpointerConfiguration.infiniteInterval)
        #expect(configuration.maxInitialSilence.isInfinite && configuration.maxRecordingTime.isInfinite)
    }

    @Test(arguments: ["maxInitialSilence", "endingSilence", "maxRecordingTime"])
    func negativeOrNaNLimitIsNamed(field: String) throws {
        let negative = try thrownEarshotError { _ = try Self.configuration(setting: field, to: -1) }
        #expect(negative?.code == .invalidParameter)
        #expect(negative?.message == "\(field): expected a duration ≥ 0 s or infinity, got -1")
        let notANumber = try thrownEarshotError { _ = try Self.configuration(setting: field, to: .nan) }
        #expect(notANumber?.message == "\(field): expected a duration ≥ 0 s or infinity, got nan")
        _ = try Self.configuration(setting: field, to: 0)
    }

    @Test func minRecordingTimeIsDisabledByZeroNotInfinity() throws {
        _ = try EndpointerConfiguration(minRecordingTime: 0)
        for value in [-0.5, .infinity, .nan] {
            let error = try thrownEarshotError { _ = try EndpointerConfiguration(minRecordingTime: value) }
            #expect(error?.code == .invalidParameter)
            #expect(
                error?.message
                    == "minRecordingTime: expected a finite duration ≥ 0 s, got \(ParameterCheck.describe(value))")
        }
    }

    @Test func invalidRuleNamesItsField() throws {
        let silence = try thrownEarshotError {
            _ = try EndpointRule(requiresSpeech: true, minTrailingSilence: -0.5, minUtteranceLength: 0)
        }
        #expect(silence?.message == "minTrailingSilence: expected a duration ≥ 0 s or infinity, got -0.5")
        let length = try thrownEarshotError {
            _ = try EndpointRule(requiresSpeech: false, minTrailingSilence: 0, minUtteranceLength: .nan)
        }
        #expect(length?.message == "minUtteranceLength: expected a duration ≥ 0 s or infinity, got nan")
    }

    static func configuration(setting field: String, to value: Double) throws -> EndpointerConfiguration {
        switch field {
        case "maxInitialSilence": try EndpointerConfiguration(maxInitialSilence: value)
        case "endingSilence": try EndpointerConfiguration(endingSilence: value)
        default: try EndpointerConfiguration(maxRecordingTime: value)
        }
    }
}
