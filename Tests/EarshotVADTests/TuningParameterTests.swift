import EarshotCore
import EarshotTestTraits
import EarshotTesting
import Testing

@testable import EarshotVAD

/// Each smoothing and endpointing parameter is declared once (issue 50): its range is what the
/// configurations check, and its names are the properties'.
@Suite(.computing) struct TuningParameterTests {
    @Test func theConfigurationsRefuseWhatTheRangeRefusesNamingTheParameter() throws {
        let (smoothing, endpointer) = (try SmoothingConfiguration(), try EndpointerConfiguration())
        func defaultValue(_ parameter: TuningParameter) -> Double { parameter.value(in: smoothing, endpointer) }
        for parameter in TuningParameter.allCases {
            let bad: Double =
                switch parameter.range {
                case .probability: 1.5
                case .duration: -1
                }
            let error = try thrownEarshotError { try parameter.check(bad) }
            #expect(error?.code == .invalidParameter && error?.message.hasPrefix(parameter.rawValue + ": ") == true)
            let configured = try thrownEarshotError {
                func value(_ other: TuningParameter) -> Double { other == parameter ? bad : defaultValue(other) }
                _ = try SmoothingConfiguration(
                    onsetThreshold: Float(value(.onsetThreshold)),
                    offsetThreshold: Float(parameter == .onsetThreshold ? 0 : value(.offsetThreshold)),
                    minSpeechDuration: value(.minSpeechDuration), minSilenceDuration: value(.minSilenceDuration),
                    speechPadBefore: value(.speechPadBefore), speechPadAfter: value(.speechPadAfter),
                    hangover: value(.hangover))
                _ = try EndpointerConfiguration(
                    maxInitialSilence: value(.maxInitialSilence), endingSilence: value(.endingSilence),
                    minRecordingTime: value(.minRecordingTime), maxRecordingTime: value(.maxRecordingTime),
                    endingSilenceThreshold: Float(value(.endingSilenceThreshold)))
            }
            #expect(configured?.message == error?.message, "\(parameter)")
        }
        #expect(throws: Never.self) { try TuningParameter.endingSilence.check(.infinity) }
        #expect(try thrownEarshotError { try TuningParameter.hangover.check(.infinity) } != nil)
    }

    @Test func namesAreThePropertiesInTwoSpellings() throws {
        #expect(TuningParameter.endingSilenceThreshold.kebabName == "ending-silence-threshold")
        #expect(TuningParameter.hangover.kebabName == "hangover")
        #expect(try TuningParameter.maxRecordingTime.parse("inf") == .infinity)
        #expect(
            try thrownEarshotError { _ = try TuningParameter.endingSilence.parse("soon") }?.message
                == "endingSilence: expected a number, got 'soon'")
        #expect(TuningParameter.allCases.filter(\.isEndpointing).count == 5)
    }
}
