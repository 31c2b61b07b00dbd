public import ArgumentParser
import EarshotCore
import EarshotLab
import EarshotVAD

extension DetectorKind: ExpressibleByArgument {}
extension SmoothingProfile: ExpressibleByArgument {}

/// The smoothing properties, each under the one name it has everywhere (Swift property, JSON
/// parameter, sweep grid), and `--threshold` for the onset threshold as other VAD tools call it. Each
/// camelCase flag also takes its kebab-case spelling (`--min-speech-duration`), as the other flags are.
struct SmoothingOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Smoothing defaults: speech (report speech as Silero's timestamps do) or cutting (a 50 ms hangover that keeps cuts out of words). Default: speech for vad, cutting elsewhere.",
            discussion: "The flags below change single values of the profile."))
    var profile: SmoothingProfile?

    @Option(
        name: [.customLong("threshold"), .customLong("onsetThreshold"), .customLong("onset-threshold")],
        parsing: .unconditional,
        help:
            "Speech probability at which speech starts (0–1). Default \(SmoothingConfiguration.Defaults.onsetThreshold)."
    )
    var onsetThreshold: Float?

    @Option(
        name: [.customLong("offsetThreshold"), .customLong("offset-threshold")], parsing: .unconditional,
        help:
            "Probability below which speech ends (≤ threshold). Default: threshold − \(SmoothingConfiguration.Defaults.offsetBelowOnset)."
    )
    var offsetThreshold: Float?

    @Option(
        name: [.customLong("minSpeechDuration"), .customLong("min-speech-duration")], parsing: .unconditional,
        help: "Drop speech shorter than this, seconds. Default \(SmoothingConfiguration.Defaults.minSpeechDuration).")
    var minSpeechDuration: Double?

    @Option(
        name: [.customLong("minSilenceDuration"), .customLong("min-silence-duration")], parsing: .unconditional,
        help: "Fill pauses shorter than this, seconds. Default \(SmoothingConfiguration.Defaults.minSilenceDuration).")
    var minSilenceDuration: Double?

    @Option(
        name: [.customLong("speechPadBefore"), .customLong("speech-pad-before")], parsing: .unconditional,
        help: "Speech padding before each segment, seconds. Default \(SmoothingConfiguration.Defaults.speechPadBefore)."
    )
    var speechPadBefore: Double?

    @Option(
        name: [.customLong("speechPadAfter"), .customLong("speech-pad-after")], parsing: .unconditional,
        help: "Speech padding after each segment, seconds. Default \(SmoothingConfiguration.Defaults.speechPadAfter).")
    var speechPadAfter: Double?

    @Option(
        parsing: .unconditional,
        help:
            "Speech continues this long after the probability drops, seconds. Default \(SmoothingConfiguration.Defaults.hangover) (profile cutting), 0 (speech)."
    )
    var hangover: Double?

    /// The flags given, applied to the defaults by the same rule a sweep row uses (an onset threshold
    /// without an offset threshold brings the offset along; see ``EvaluationSettings/applying(_:)``).
    func configuration(defaultProfile: SmoothingProfile = .cutting) throws -> SmoothingConfiguration {
        let given: [(SweepParameter, Double?)] = [
            (.onsetThreshold, onsetThreshold.map(Double.init)), (.offsetThreshold, offsetThreshold.map(Double.init)),
            (.minSpeechDuration, minSpeechDuration), (.minSilenceDuration, minSilenceDuration),
            (.speechPadBefore, speechPadBefore), (.speechPadAfter, speechPadAfter), (.hangover, hangover),
        ]
        let setting = SweepSetting(
            values: given.compactMap { parameter, value in value.map { (parameter, .number($0)) } })
        let defaults = EvaluationSettings(
            smoothing: try (profile ?? defaultProfile).configuration(), endpointer: try EndpointerConfiguration())
        return try defaults.applying(setting).smoothing
    }
}

/// The seed SDK's endpointing properties (table 5-2), by their SDK names (and each also in kebab case,
/// `--ending-silence`), and Kaldi-style rules.
struct EndpointingOptions: ParsableArguments {
    @Option(
        name: [.customLong("maxInitialSilence"), .customLong("max-initial-silence")], parsing: .unconditional,
        help: "No speech by then ends the interaction, seconds or inf.")
    var maxInitialSilence = EndpointerConfiguration.Defaults.maxInitialSilence

    @Option(
        name: [.customLong("endingSilence"), .customLong("ending-silence")], parsing: .unconditional,
        help: "Silence after speech that ends it, seconds or inf.")
    var endingSilence = EndpointerConfiguration.Defaults.endingSilence

    @Option(
        name: [.customLong("minRecordingTime"), .customLong("min-recording-time")], parsing: .unconditional,
        help: "A stop before this gives AudioTooShort, seconds (0: off).")
    var minRecordingTime = EndpointerConfiguration.Defaults.minRecordingTime

    @Option(
        name: [.customLong("maxRecordingTime"), .customLong("max-recording-time")], parsing: .unconditional,
        help: "Capture stops here even during speech, seconds or inf.")
    var maxRecordingTime = EndpointerConfiguration.Defaults.maxRecordingTime

    @Option(
        name: [.customLong("cancelWhenSilent"), .customLong("cancel-when-silent")], parsing: .unconditional,
        help: "true: silent input ends with NoAudio instead of being sent.")
    var cancelWhenSilent = EndpointerConfiguration.Defaults.cancelWhenSilent

    @Option(
        name: .customLong("rule"),
        help: ArgumentHelp(
            "An endpoint rule SPEECH:TRAILING:LENGTH (repeatable; replaces endingSilence).",
            discussion:
                "SPEECH is 'speech' (speech must have been heard) or 'any'; the endpoint fires when trailing silence ≥ TRAILING s and the utterance (from the first speech) ≥ LENGTH s. E.g. --rule speech:1.0:0 --rule speech:0.5:5"
        ))
    var rules: [String] = []

    @Option(
        name: [.customLong("endingSilenceThreshold"), .customLong("ending-silence-threshold")],
        help: ArgumentHelp(
            "Speech probability a speech frame needs to hold off the ending silence (0–1; 0 is the SDK's rule).",
            discussion:
                "Trailing silence runs from the last speech frame at or above it, so with the offset threshold (0.35) it starts where the probability fell rather than after the smoother's hangover and padding."
        ))
    var endingSilenceThreshold = EndpointerConfiguration.Defaults.endingSilenceThreshold

    func configuration() throws -> EndpointerConfiguration {
        try EndpointerConfiguration(
            maxInitialSilence: maxInitialSilence, endingSilence: endingSilence, minRecordingTime: minRecordingTime,
            maxRecordingTime: maxRecordingTime, cancelWhenSilent: cancelWhenSilent, rules: rules.map(Self.parseRule),
            endingSilenceThreshold: endingSilenceThreshold)
    }

    static func parseRule(_ text: String) throws -> EndpointRule {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard fields.count == 3, ["speech", "any"].contains(fields[0]), let trailing = Double(fields[1]),
            let length = Double(fields[2])
        else {
            throw EarshotError(
                .invalidParameter, "--rule '\(text)': expected SPEECH:TRAILING:LENGTH, e.g. speech:0.5:5")
        }
        return try EndpointRule(
            requiresSpeech: fields[0] == "speech", minTrailingSilence: trailing, minUtteranceLength: length)
    }
}
