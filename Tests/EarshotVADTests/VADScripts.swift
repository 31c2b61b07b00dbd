import EarshotCore

@testable import EarshotVAD

/// Synthetic VAD input written as strings, one character per 10 ms hop at 16 kHz.
enum Script {
    static let rate = 16000
    static let hop = 160

    /// `ms` milliseconds into the stream.
    static func t(_ ms: Int) -> MediaTime { MediaTime(frame: Int64(ms * rate / 1000), sampleRate: rate) }

    /// Decisions from a string: `S` is speech, anything else silence. Each is decided `delayMs` after
    /// its end; the first starts at `startMs`.
    static func decisions(_ script: String, startMs: Int = 0, delayMs: Int = 0) -> [VADDecision] {
        script.enumerated().map { index, character in
            let start = t(startMs + index * 10)
            return VADDecision(
                start: start, frameCount: hop, isSpeech: character == "S", probability: character == "S" ? 1 : 0,
                decidedAt: start.advanced(by: Int64(hop + delayMs * rate / 1000)))
        }
    }

    /// Decisions that carry the detector's probability: `S` is speech at probability 1, `_` silence at
    /// 0, a digit `d` speech at probability d/10 (a frame the smoother kept as speech though the
    /// detector no longer heard it: hangover, padding, a bridged dip). Each is decided `delayMs` after
    /// its end.
    static func weighedDecisions(_ script: String, delayMs: Int = 0) -> [VADDecision] {
        script.enumerated().map { index, character in
            let start = t(index * 10)
            let probability: Float = character == "S" ? 1 : Float(character.wholeNumberValue ?? 0) / 10
            return VADDecision(
                start: start, frameCount: hop, isSpeech: character != "_", probability: probability,
                decidedAt: start.advanced(by: Int64(hop + delayMs * rate / 1000)))
        }
    }

    /// Detector frames from a string of digits: `d` is probability d/10, `S` is 1 and `_` is 0.
    static func frames(_ script: String, startMs: Int = 0) -> [VADFrame] {
        script.enumerated().map { index, character in
            let probability: Float =
                switch character {
                case "S": 1
                case "_": 0
                default: Float(character.wholeNumberValue!) / 10
                }
            return VADFrame(start: t(startMs + index * 10), frameCount: hop, probability: probability)
        }
    }

    /// Decisions as a string again: `S` speech, `_` silence.
    static func labels(_ decisions: [VADDecision]) -> String {
        String(decisions.map { $0.isSpeech ? "S" : "_" })
    }
}
