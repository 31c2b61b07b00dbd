import EarshotCore
public import EarshotVAD

/// Everything that decides what an evaluation measures: the detector, how its probabilities are
/// smoothed into decisions, and when the endpointer ends an utterance.
public struct EvaluationSettings: Sendable {
    public var detector: DetectorKind
    public var smoothing: SmoothingConfiguration
    public var endpointer: EndpointerConfiguration
    /// The models learned detectors need; not a parameter (`parameters` names the detector that ran).
    public var models: DetectorModels
    /// How far from the label oracle's endpoint, either side, an endpoint is still on time, seconds: a
    /// way of scoring, not a setting of the pipeline, so not in `parameters` (reports carry it as
    /// `tolerance_s` next to the rates it produced).
    public var onTimeTolerance = OracleTiming.defaultTolerance

    public init(
        detector: DetectorKind = .spectral, smoothing: SmoothingConfiguration, endpointer: EndpointerConfiguration,
        models: DetectorModels = .none
    ) {
        self.detector = detector
        self.models = models
        self.smoothing = smoothing
        self.endpointer = endpointer
    }

    /// How far below the onset threshold the offset threshold sits when only the onset is given:
    /// Silero VAD's rule (`neg_threshold = threshold − 0.15`), which our defaults (0.5/0.35) follow.
    public static let hysteresisGap = SmoothingConfiguration.Defaults.offsetBelowOnset

    /// These settings with a sweep row's values in place. An onset threshold given without an offset
    /// threshold brings the offset along at ``hysteresisGap`` below it. Throws, naming the field, when
    /// the combination is invalid (an offset above the onset).
    public func applying(_ setting: SweepSetting) throws -> EvaluationSettings {
        func given(_ parameter: TuningParameter) -> Double? {
            if case .number(let value) = setting[.tuning(parameter)] { return value }
            return nil
        }
        func number(_ parameter: TuningParameter) -> Double {
            given(parameter) ?? parameter.value(in: smoothing, endpointer)
        }
        var settings = self
        if case .name(let name) = setting[.detector] {
            guard let kind = DetectorKind(rawValue: name) else {
                let names = DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")
                throw EarshotError(.invalidParameter, "detector: unknown detector '\(name)'; expected one of \(names)")
            }
            settings.detector = kind
        }
        let onset = Float(number(.onsetThreshold))
        let offset =
            given(.offsetThreshold).map(Float.init)
            ?? (given(.onsetThreshold) == nil ? smoothing.offsetThreshold : max(0, onset - Self.hysteresisGap))
        settings.smoothing = try SmoothingConfiguration(
            onsetThreshold: onset, offsetThreshold: offset, minSpeechDuration: number(.minSpeechDuration),
            minSilenceDuration: number(.minSilenceDuration), speechPadBefore: number(.speechPadBefore),
            speechPadAfter: number(.speechPadAfter), hangover: number(.hangover))
        settings.endpointer = try EndpointerConfiguration(
            maxInitialSilence: number(.maxInitialSilence), endingSilence: number(.endingSilence),
            minRecordingTime: number(.minRecordingTime), maxRecordingTime: number(.maxRecordingTime),
            cancelWhenSilent: endpointer.cancelWhenSilent, rules: endpointer.rules,
            endingSilenceThreshold: Float(number(.endingSilenceThreshold)))
        return settings
    }

    /// The effective values, by their one name (``TuningParameter``: Swift property, CLI flag, sweep
    /// parameter), for the `parameters` object of every JSON report.
    public var parameters: [String: ParameterValue] {
        var parameters: [String: ParameterValue] = [
            "detector": .name(detector.rawValue),
            "cancelWhenSilent": .flag(endpointer.cancelWhenSilent),
            // In the CLI's --rule notation; empty when the endingSilence rule is in force.
            "rules": .name(
                endpointer.rules.map { rule in
                    [
                        rule.requiresSpeech ? "speech" : "any", SweepValue.format(rule.minTrailingSilence),
                        SweepValue.format(rule.minUtteranceLength),
                    ].joined(separator: ":")
                }.joined(separator: " ")),
        ]
        for parameter in TuningParameter.allCases {
            let value = parameter.value(in: smoothing, endpointer)
            // A probability is a Float setting: reported as the decimal it was given as.
            parameters[parameter.rawValue] = .number(
                parameter.range == .probability ? Self.decimal(Float(value)) : value)
        }
        return parameters
    }

    /// A Float setting as the decimal it was given as (0.35, not 0.3499999940395355).
    static func decimal(_ value: Float) -> Double { Double(value.description) ?? Double(value) }
}
