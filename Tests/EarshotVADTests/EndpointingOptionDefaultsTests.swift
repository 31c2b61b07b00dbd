import EarshotTestTraits
import EarshotTesting
import EarshotVAD
import Testing

/// The endpointing and smoothing options show the libraries' defaults, declared there once.
@Suite(.waiting) struct EndpointingOptionDefaultsTests {
    @Test func endpointingAndSmoothingShowTheLibrarysDefaults() throws {
        let dump = try OptionDump()
        let endpointer = EndpointerConfiguration.Defaults.self
        for command in ["endpoint", "eval", "sweep", "listen"] {
            #expect(dump.numericDefault(command, "maxInitialSilence") == endpointer.maxInitialSilence, "\(command)")
            #expect(dump.numericDefault(command, "endingSilence") == endpointer.endingSilence)
            #expect(dump.numericDefault(command, "minRecordingTime") == endpointer.minRecordingTime)
            #expect(dump.numericDefault(command, "maxRecordingTime") == endpointer.maxRecordingTime)
            #expect(dump.numericDefault(command, "endingSilenceThreshold") == Double(endpointer.endingSilenceThreshold))
            #expect(dump.option(command, "cancelWhenSilent")?.defaultValue == "\(endpointer.cancelWhenSilent)")
        }
        let smoothing = SmoothingConfiguration.Defaults.self
        for (name, value) in [
            ("threshold", "\(smoothing.onsetThreshold)"), ("minSpeechDuration", "\(smoothing.minSpeechDuration)"),
            ("minSilenceDuration", "\(smoothing.minSilenceDuration)"),
            ("speechPadBefore", "\(smoothing.speechPadBefore)"),
            ("speechPadAfter", "\(smoothing.speechPadAfter)"), ("hangover", "\(smoothing.hangover)"),
        ] {
            #expect(dump.option("vad", name)?.help.contains("Default \(value)") == true, "vad --\(name)")
        }
        #expect(smoothing.offsetThreshold == 0.35, "Silero's 0.5 − 0.15")
    }
}
