import EarshotCore

/// The smoothing's and the endpointer's numeric parameters, each declared once: its one name — the
/// property of ``SmoothingConfiguration`` or ``EndpointerConfiguration``, the CLI flag (which also takes
/// ``kebabName``), the config key, the lab's sweep axis and the reports' field — the values it takes
/// and its help. Its default is the configuration's (``SmoothingConfiguration/Defaults``,
/// ``EndpointerConfiguration/Defaults``), read with ``value(in:_:)``. The configurations check their values with ``check(_:)``; the CLI, the
/// sweep grid and the reports read the rest from here.
public enum TuningParameter: String, Sendable, CaseIterable, Hashable, Codable {
    case onsetThreshold, offsetThreshold
    case minSpeechDuration, minSilenceDuration, speechPadBefore, speechPadAfter, hangover
    case maxInitialSilence, endingSilence, minRecordingTime, maxRecordingTime, endingSilenceThreshold

    /// The values a parameter takes.
    public enum Range: Sendable, Hashable {
        /// A probability in [0, 1].
        case probability
        /// Seconds, finite and ≥ 0; or also infinite, the SDK's infinite interval, which disables the limit.
        case duration(allowsInfinity: Bool)
    }

    public var range: Range {
        switch self {
        case .onsetThreshold, .offsetThreshold, .endingSilenceThreshold: .probability
        case .maxInitialSilence, .endingSilence, .maxRecordingTime: .duration(allowsInfinity: true)
        // The smoother's durations become look-ahead and size its buffer; minRecordingTime is 0 to disable.
        case .minSpeechDuration, .minSilenceDuration, .speechPadBefore, .speechPadAfter, .hangover,
            .minRecordingTime:
            .duration(allowsInfinity: false)
        }
    }

    /// An endpointer property (``EndpointerConfiguration``), as opposed to the smoothing's.
    public var isEndpointing: Bool {
        switch self {
        case .maxInitialSilence, .endingSilence, .minRecordingTime, .maxRecordingTime, .endingSilenceThreshold: true
        default: false
        }
    }

    /// The name in kebab case (`ending-silence`), as every other flag is spelled; the SDK's camelCase
    /// name stays the first.
    public var kebabName: String {
        rawValue.reduce(into: "") { name, character in
            if character.isUppercase { name += "-" + character.lowercased() } else { name.append(character) }
        }
    }

    /// The value in effect in `smoothing` or `endpointer` (whichever holds the parameter).
    public func value(in smoothing: SmoothingConfiguration, _ endpointer: EndpointerConfiguration) -> Double {
        switch self {
        case .onsetThreshold: Double(smoothing.onsetThreshold)
        case .offsetThreshold: Double(smoothing.offsetThreshold)
        case .minSpeechDuration: smoothing.minSpeechDuration
        case .minSilenceDuration: smoothing.minSilenceDuration
        case .speechPadBefore: smoothing.speechPadBefore
        case .speechPadAfter: smoothing.speechPadAfter
        case .hangover: smoothing.hangover
        case .maxInitialSilence: endpointer.maxInitialSilence
        case .endingSilence: endpointer.endingSilence
        case .minRecordingTime: endpointer.minRecordingTime
        case .maxRecordingTime: endpointer.maxRecordingTime
        case .endingSilenceThreshold: Double(endpointer.endingSilenceThreshold)
        }
    }

    /// One line for `--help`.
    public var help: String {
        let defaults = SmoothingConfiguration.Defaults.self
        return switch self {
        case .onsetThreshold: "Speech probability at which speech starts (0–1). Default \(defaults.onsetThreshold)."
        case .offsetThreshold:
            "Probability below which speech ends (≤ threshold). Default: threshold − \(defaults.offsetBelowOnset)."
        case .minSpeechDuration: "Drop speech shorter than this, seconds. Default \(defaults.minSpeechDuration)."
        case .minSilenceDuration: "Fill pauses shorter than this, seconds. Default \(defaults.minSilenceDuration)."
        case .speechPadBefore: "Speech padding before each segment, seconds. Default \(defaults.speechPadBefore)."
        case .speechPadAfter: "Speech padding after each segment, seconds. Default \(defaults.speechPadAfter)."
        case .hangover:
            "Speech continues this long after the probability drops, seconds. Default \(defaults.hangover) (profile cutting), 0 (speech)."
        case .maxInitialSilence: "No speech by then ends the interaction, seconds or inf."
        case .endingSilence: "Silence after speech that ends it, seconds or inf."
        case .minRecordingTime: "A stop before this gives AudioTooShort, seconds (0: off)."
        case .maxRecordingTime: "Capture stops here even during speech, seconds or inf."
        case .endingSilenceThreshold:
            "Speech probability a speech frame needs to hold off the ending silence (0–1; 0 is the SDK's rule)."
        }
    }

    /// More for `--help`, where one line is not enough.
    public var discussion: String {
        switch self {
        case .endingSilenceThreshold:
            "Trailing silence runs from the last speech frame at or above it, so with the offset threshold (0.35) it starts where the probability fell rather than after the smoother's hangover and padding."
        default: ""
        }
    }

    /// Throws ``EarshotError/Code/invalidParameter`` naming the parameter when `value` is outside
    /// ``range``: "`name`: expected …, got …".
    public func check(_ value: Double) throws {
        switch range {
        case .probability: try ParameterCheck.probability(Float(value), rawValue)
        case .duration(let allowsInfinity): try ParameterCheck.duration(value, rawValue, allowsInfinity: allowsInfinity)
        }
    }

    /// Reads one value as written on a command line or in a grid: a number, or `inf`/`infinity`.
    public func parse(_ text: String) throws -> Double {
        let number: Double? = ["inf", "infinity"].contains(text.lowercased()) ? .infinity : Double(text)
        guard let number else {
            throw EarshotError(.invalidParameter, "\(rawValue): expected a number, got '\(text)'")
        }
        try check(number)
        return number
    }
}
