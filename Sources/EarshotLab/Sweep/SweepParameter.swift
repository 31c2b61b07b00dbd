import EarshotCore

/// A setting a sweep can vary: the VAD detector, a smoothing property, or an endpointing property,
/// named exactly as the Swift property and the CLI flag.
public enum SweepParameter: String, Sendable, CaseIterable, Hashable, Codable {
    case detector
    case onsetThreshold, offsetThreshold
    case minSpeechDuration, minSilenceDuration, speechPadBefore, speechPadAfter, hangover
    case maxInitialSilence, endingSilence, minRecordingTime, maxRecordingTime, endingSilenceThreshold

    /// Endpointer properties, as opposed to the detector and its smoothing.
    public var isEndpointing: Bool {
        [.maxInitialSilence, .endingSilence, .minRecordingTime, .maxRecordingTime, .endingSilenceThreshold]
            .contains(self)
    }

    /// Thresholds are probabilities; everything else is a duration in seconds.
    var isThreshold: Bool { [.onsetThreshold, .offsetThreshold, .endingSilenceThreshold].contains(self) }

    /// Limits the SDK lets an application switch off with its infinite interval.
    var acceptsInfinity: Bool { [.maxInitialSilence, .endingSilence, .maxRecordingTime].contains(self) }

    /// Parses one value written on the command line.
    func value(_ text: String) throws -> SweepValue {
        if self == .detector {
            guard !text.isEmpty else {
                throw EarshotError(.invalidParameter, "sweep grid detector: expected a detector name, got ''")
            }
            return .name(text)
        }
        let number: Double? = ["inf", "infinity"].contains(text.lowercased()) ? .infinity : Double(text)
        guard let number else {
            throw EarshotError(.invalidParameter, "sweep grid \(rawValue): expected a number, got '\(text)'")
        }
        return .number(try validated(number))
    }

    /// Checks a number is in range for this parameter.
    func validated(_ number: Double) throws -> Double {
        if isThreshold {
            guard (0...1).contains(number) else {
                throw EarshotError(
                    .invalidParameter, "sweep grid \(rawValue): expected a probability in 0…1, got \(number)")
            }
        } else if number.isNaN || number < 0 || (number.isInfinite && !acceptsInfinity) {
            let expected = acceptsInfinity ? "a duration ≥ 0 s or inf" : "a finite duration ≥ 0 s"
            throw EarshotError(.invalidParameter, "sweep grid \(rawValue): expected \(expected), got \(number)")
        }
        return number
    }
}
