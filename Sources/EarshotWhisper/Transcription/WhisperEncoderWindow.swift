/// How much audio Whisper's encoder runs over for each window, in encoder positions (20 ms each, 1 500 for
/// a 30 s window).
///
/// Whisper was trained on 30 s windows, and faster-whisper encodes a full one even for a 3 s utterance:
/// the encoder's work, and the decoder's cross-attention at every token, pay for 27 s of padding. A
/// fitted window encodes only the first positions — the mel input trimmed to twice as many frames, the
/// learned positions sliced to that length, the cross-attention over those positions — as whisper.cpp's
/// `audio_ctx` parameter does (the idea is whisper.cpp's; the code is ours). Timestamps are then limited
/// to the window, and segment and word times to the audio it holds.
///
/// It costs words when the window is too tight: whisper.cpp 1.8.5 on the five LibriVox clips (tiny.en,
/// beam 5) keeps the full window's words at 768 positions, loses 1.4 WER points at 512 or 384, and loops
/// and hallucinates at exactly the clip's length. ``live`` is the rule measured here (BENCHMARKS.md,
/// "Whisper: a shorter encoder window for live answers").
public enum WhisperEncoderWindow: Sendable, Equatable, CustomStringConvertible {
    /// The model's whole window (30 s), whatever the audio's length: faster-whisper's, for parity.
    case full
    /// The window's audio plus `margin` positions, at least `minimum`, rounded up to a multiple of
    /// ``granularity``; the full window once that reaches it.
    case fitted(minimum: Int, margin: Int)

    /// The rule chosen on the LibriVox clips (the full window's words at about half the decode CPU). With
    /// the transcriber's fallback to the full window when a fitted decode loops or says nothing, it kept
    /// the `real` corpus within one WER point: the default of live decodes
    /// (``WhisperOptions/liveEncoderWindow``), not of files (BENCHMARKS.md).
    public static let live = WhisperEncoderWindow.fitted(minimum: 512, margin: 128)

    /// Fitted windows are whole multiples of this many positions (1.28 s).
    public static let granularity = 64

    /// The positions to encode for a window whose audio is `contentFrames` mel frames (10 ms each), of a
    /// model with `audioContext` positions.
    public func positions(contentFrames: Int, audioContext: Int) -> Int {
        switch self {
        case .full:
            return audioContext
        case .fitted(let minimum, let margin):
            let needed = max(minimum, (contentFrames + 1) / 2 + margin)
            let rounded = (needed + Self.granularity - 1) / Self.granularity * Self.granularity
            return min(rounded, audioContext)
        }
    }

    /// `full`, or `fitted:MINIMUM:MARGIN` (positions): what `--encoder-window` takes.
    public var description: String {
        switch self {
        case .full: "full"
        case .fitted(let minimum, let margin): "fitted:\(minimum):\(margin)"
        }
    }

    /// Reads `full`, `fitted` (``live``), or `fitted:MINIMUM[:MARGIN]` in positions (margin 128 when not given).
    public init?(_ text: String) {
        let parts = text.lowercased().split(separator: ":", omittingEmptySubsequences: false)
        switch String(parts[0]) {
        case "full" where parts.count == 1:
            self = .full
        case "fitted" where parts.count == 1:
            self = .live
        case "fitted" where parts.count <= 3:
            guard let minimum = Int(parts[1]), let margin = parts.count == 3 ? Int(parts[2]) : 128 else {
                return nil
            }
            self = .fitted(minimum: minimum, margin: margin)
        default:
            return nil
        }
    }

    /// What is wrong with a fitted window's numbers, naming the one out of range; nil when nothing is.
    public var problem: String? {
        guard case .fitted(let minimum, let margin) = self else { return nil }
        if !(1...1_500).contains(minimum) { return "a minimum of 1–1500 positions, not \(minimum)" }
        if !(0...1_500).contains(margin) { return "a margin of 0–1500 positions, not \(margin)" }
        return nil
    }
}
