/// Two sets of smoothing defaults, for the two things segments are used for.
///
/// Both are Silero VAD's `get_speech_timestamps` defaults (see ``SmoothingConfiguration``); they differ
/// in the hangover. Measured with `Benchmarks/vad/timestamps.py` (BENCHMARKS.md, "Reporting speech"):
/// with Silero's probabilities, ``speech`` segments agree with Silero's own timestamps on 99.8 % of the
/// 10 ms frames of the noisy and real corpora, while ``cutting``'s 50 ms hangover ends every segment
/// ~60 ms later and raises the false-alarm rate from 0.174 to 0.202 on the noisy corpus.
public enum SmoothingProfile: String, Sendable, Hashable, CaseIterable, Codable {
    /// Report speech as Silero's timestamps do: no hangover. The default of `earshot vad`.
    case speech
    /// Cut recordings and end utterances: a 50 ms hangover bridges the dips of a frame or few at word
    /// ends, so an utterance is not cut inside a word. The default of every command that cuts or
    /// endpoints (transcribe, endpoint, listen, eval, sweep).
    case cutting

    /// The profile's settings; each can still be changed one by one.
    public func configuration() throws -> SmoothingConfiguration {
        switch self {
        case .speech: try SmoothingConfiguration(hangover: 0)
        case .cutting: try SmoothingConfiguration()
        }
    }
}
