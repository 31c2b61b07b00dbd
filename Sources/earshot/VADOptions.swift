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

    @Option(name: .tuning(.onsetThreshold), parsing: .unconditional, help: .tuning(.onsetThreshold))
    var onsetThreshold: Float?

    @Option(name: .tuning(.offsetThreshold), parsing: .unconditional, help: .tuning(.offsetThreshold))
    var offsetThreshold: Float?

    @Option(name: .tuning(.minSpeechDuration), parsing: .unconditional, help: .tuning(.minSpeechDuration))
    var minSpeechDuration: Double?

    @Option(name: .tuning(.minSilenceDuration), parsing: .unconditional, help: .tuning(.minSilenceDuration))
    var minSilenceDuration: Double?

    @Option(name: .tuning(.speechPadBefore), parsing: .unconditional, help: .tuning(.speechPadBefore))
    var speechPadBefore: Double?

    @Option(name: .tuning(.speechPadAfter), parsing: .unconditional, help: .tuning(.speechPadAfter))
    var speechPadAfter: Double?

    @Option(name: .tuning(.hangover), parsing: .unconditional, help: .tuning(.hangover))
    var hangover: Double?

    /// The flags given, applied to the defaults by the same rule a sweep row uses (an onset threshold
    /// without an offset threshold brings the offset along; see ``EvaluationSettings/applying(_:)``).
    func configuration(defaultProfile: SmoothingProfile = .cutting) throws -> SmoothingConfiguration {
        let given: [(TuningParameter, Double?)] = [
            (.onsetThreshold, onsetThreshold.map(Double.init)), (.offsetThreshold, offsetThreshold.map(Double.init)),
            (.minSpeechDuration, minSpeechDuration), (.minSilenceDuration, minSilenceDuration),
            (.speechPadBefore, speechPadBefore), (.speechPadAfter, speechPadAfter), (.hangover, hangover),
        ]
        let setting = SweepSetting(
            values: given.compactMap { parameter, value in value.map { (.tuning(parameter), .number($0)) } })
        let defaults = EvaluationSettings(
            smoothing: try (profile ?? defaultProfile).configuration(), endpointer: try EndpointerConfiguration())
        return try defaults.applying(setting).smoothing
    }
}

/// The seed SDK's endpointing properties (table 5-2), by their SDK names (and each also in kebab case,
/// `--ending-silence`), and Kaldi-style rules.
struct EndpointingOptions: ParsableArguments {
    @Option(name: .tuning(.maxInitialSilence), parsing: .unconditional, help: .tuning(.maxInitialSilence))
    var maxInitialSilence = EndpointerConfiguration.Defaults.maxInitialSilence

    @Option(name: .tuning(.endingSilence), parsing: .unconditional, help: .tuning(.endingSilence))
    var endingSilence = EndpointerConfiguration.Defaults.endingSilence

    @Option(name: .tuning(.minRecordingTime), parsing: .unconditional, help: .tuning(.minRecordingTime))
    var minRecordingTime = EndpointerConfiguration.Defaults.minRecordingTime

    @Option(name: .tuning(.maxRecordingTime), parsing: .unconditional, help: .tuning(.maxRecordingTime))
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

    @Option(name: .tuning(.endingSilenceThreshold), help: .tuning(.endingSilenceThreshold))
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

extension NameSpecification {
    /// A tuning parameter's flags: its SDK name, then its kebab-case spelling (`--endingSilence`,
    /// `--ending-silence`); the onset threshold is `--threshold` first, as other VAD tools call it.
    static func tuning(_ parameter: TuningParameter) -> NameSpecification {
        if parameter == .onsetThreshold {
            return [.customLong("threshold"), .customLong(parameter.rawValue), .customLong(parameter.kebabName)]
        }
        return [.customLong(parameter.rawValue), .customLong(parameter.kebabName)]
    }
}

extension ArgumentHelp {
    /// A tuning parameter's help, as ``TuningParameter`` declares it.
    static func tuning(_ parameter: TuningParameter) -> ArgumentHelp {
        ArgumentHelp(parameter.help, discussion: parameter.discussion)
    }
}
