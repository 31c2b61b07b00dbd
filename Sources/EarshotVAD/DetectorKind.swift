import EarshotCore

/// The detectors Earshot ships, by the name the CLI's `--detector` takes.
public enum DetectorKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// ``EnergyDetector``: frame energy against a tracked noise floor.
    case energy
    /// ``SpectralDetector``: the Sohn, Kim & Sung likelihood-ratio test on an FFT spectrum.
    case spectral
    /// ``SpeexDetector``: speexdsp's preprocessor VAD, a weak baseline.
    case speex

    /// One line for `--help`.
    public var summary: String {
        switch self {
        case .energy: "energy above an adaptive noise floor; any rate 8–48 kHz, gain-independent"
        case .spectral:
            "statistical likelihood-ratio test on the spectrum (Sohn et al. 1999); 8 or 16 kHz, best in noise"
        case .speex: "speexdsp's preprocessor VAD; any rate 8–48 kHz, a weak baseline"
        }
    }

    public var description: String { rawValue }

    /// A new detector of this kind, with its default configuration, for `sampleRate`; throws naming
    /// `sampleRate` if this kind cannot run at it.
    public func makeDetector(sampleRate: Int) throws -> any VoiceActivityDetector {
        switch self {
        case .energy: try EnergyDetector(sampleRate: sampleRate)
        case .spectral: try SpectralDetector(sampleRate: sampleRate)
        case .speex: try SpeexDetector(sampleRate: sampleRate)
        }
    }
}
