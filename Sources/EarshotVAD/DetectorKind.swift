import EarshotCore

/// The detectors Earshot ships, by the name the CLI's `--detector` takes.
public enum DetectorKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ``EnergyDetector``: frame energy against a tracked noise floor.
    case energy
    /// ``SpectralDetector``: the Sohn, Kim & Sung likelihood-ratio test on an FFT spectrum.
    case spectral
    /// ``SpeexDetector``: speexdsp's preprocessor VAD, a weak baseline.
    case speex
    /// ``SileroDetector``: Silero VAD v6's network, our inference; needs ``DetectorModels/silero``.
    case silero

    /// One line for `--help`.
    public var summary: String {
        switch self {
        case .energy: "energy above an adaptive noise floor; any rate 8–48 kHz, gain-independent"
        case .spectral:
            "statistical likelihood-ratio test on the spectrum (Sohn et al. 1999); 8 or 16 kHz, best in noise"
        case .speex: "speexdsp's preprocessor VAD; any rate 8–48 kHz, a weak baseline"
        case .silero: "Silero VAD v6's network (learned), our inference; 16 kHz, needs silero_vad.onnx, the default"
        }
    }

    public var description: String { rawValue }

    /// Whether this kind runs a model that must be loaded first (see ``DetectorModels``).
    public var needsModel: Bool { self == .silero }

    /// A new detector of this kind, with its default configuration, for `sampleRate`; throws naming
    /// `sampleRate` if this kind cannot run at it, and `.modelUnavailable` saying how to install the
    /// model if it needs one that `models` does not hold.
    public func makeDetector(sampleRate: Int, models: DetectorModels = .none) throws -> any VoiceActivityDetector {
        switch self {
        case .energy: return try EnergyDetector(sampleRate: sampleRate)
        case .spectral: return try SpectralDetector(sampleRate: sampleRate)
        case .speex: return try SpeexDetector(sampleRate: sampleRate)
        case .silero:
            guard let model = models.silero else {
                throw EarshotError(.modelUnavailable, "silero VAD: no model loaded; \(SileroModel.installHint)")
            }
            return try SileroDetector(model: model, sampleRate: sampleRate)
        }
    }
}
