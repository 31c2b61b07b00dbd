import EarshotCore
public import EarshotRecognizer

/// How Whisper decodes, with faster-whisper's defaults (which are openai/whisper's, with beam 5): the
/// parameters users of Whisper know by these names.
public struct WhisperOptions: Sendable, Equatable {
    /// Beam width; 1 decodes greedily.
    public var beamSize: Int
    /// Beam search stops once `round(beamSize · patience)` hypotheses have ended.
    public var patience: Double
    /// Hypotheses are ranked by `Σ log p / length^lengthPenalty`.
    public var lengthPenalty: Double
    /// Temperatures tried in turn while a window's result looks wrong (too repetitive, or too
    /// improbable); above 0 the window is sampled, `bestOf` times.
    public var temperatures: [Double]
    public var bestOf: Int
    /// A result whose text compresses (zlib) by more than this is repetition: try the next temperature.
    public var compressionRatioThreshold: Double?
    /// A result whose average token log-probability is below this: try the next temperature.
    public var logProbabilityThreshold: Double?
    /// A window whose no-speech probability is above this (and whose average log-probability is
    /// below `logProbabilityThreshold`) is silence: nothing is transcribed.
    public var noSpeechThreshold: Double?
    /// Later windows of an utterance are prompted with the text before them.
    public var conditionOnPreviousText: Bool
    /// Above this temperature, the text so far stops being a prompt.
    public var promptResetOnTemperature: Double
    /// Text that prompts the first window: names, spellings, the style of the transcript.
    public var initialPrompt: String?
    /// Words to bias decoding toward (a custom language model's vocabulary): each token that spells
    /// one gains `vocabularyBonus` in the search's ranking, and a word begun but not finished gives it
    /// back (``VocabularyBias``).
    public var vocabulary: [String]
    /// The order of the `vocabulary`'s words in the model's phrases: with it, a word gains the bonus
    /// only where the order lets it follow the word before (``VocabularyBias``).
    public var vocabularyOrder: WordOrder?
    /// The bonus per token of a `vocabulary` word, in nats of log-probability (0 turns biasing off).
    public var vocabularyBonus: Double
    /// The default `vocabularyBonus`, chosen on the chess set's clean half and the LibriVox clips
    /// (BENCHMARKS.md, "Custom language models").
    public static let defaultVocabularyBonus = 2.0
    /// faster-whisper's beam width.
    public static let defaultBeamSize = 5
    /// The spoken language's code (`en`, `de`, …); nil to detect it on the first 30 s (a multilingual
    /// model) or to take English (an English-only one). A code the model does not speak is refused
    /// (``WhisperModel/requireLanguage(_:)``).
    public var language: String?
    /// Transcribe, or translate into English (a multilingual model only: ``WhisperModel/requireTask(_:)``).
    public var task = WhisperTask.transcribe
    /// Suppress a blank (a space or the end) as the first token.
    public var suppressBlank: Bool
    /// Tokens never emitted; nil for the default set (speaker tags, music and other non-speech
    /// symbols, and the special tokens), as faster-whisper's `suppress_tokens=[-1]`.
    public var suppressTokens: [Int]?
    /// Decode without timestamp tokens (one segment per window, no word times from segments).
    public var withoutTimestamps: Bool
    /// The first timestamp may be at most this late, in seconds.
    public var maxInitialTimestamp: Double
    /// Align each word to the audio (cross-attention and dynamic time warping).
    public var wordTimestamps: Bool
    /// With word timestamps, the longest audio after the last word of a recording's last window that is
    /// not decoded again, in seconds. The window has already heard it, so it holds no speech the decode
    /// missed, yet decoded alone a prompted Whisper fills it with its prompt ("Play the Tartakower. Play
    /// the Tartakower.", the second sentence's words a few milliseconds long). nil (the default, as
    /// faster-whisper) decodes any tail; a custom language model, which prompts, sets
    /// ``defaultSkippedTail``. (OpenAI's Whisper skips such a remainder, anywhere, under its
    /// `hallucination_silence_threshold`.)
    public var skippedTail: Double?
    /// The tail a custom language model skips (BENCHMARKS.md, "Custom language models out of sample").
    public static let defaultSkippedTail = 1.0
    /// How much of each 30 s window the encoder runs over: ``WhisperEncoderWindow/full`` (faster-whisper's,
    /// the default) or fitted to the audio (``WhisperEncoderWindow/live``: faster, but it can cost words).
    public var encoderWindow: WhisperEncoderWindow
    /// The encoder window of the final decode a ``WhisperRecognizer`` begins at the speaker's pause, while
    /// the audio is still arriving live: ``WhisperEncoderWindow/live`` by default (a window that loops or
    /// says nothing is decoded again in full), which about halves that decode, so it ends within the
    /// endpointer's wait, for under one WER point on whole recordings (chosen on the LibriVox clips,
    /// confirmed on the `real` corpus; two words more in 78 on Realtime sessions: BENCHMARKS.md). ``WhisperEncoderWindow/full`` gives a live answer a file's words. A final
    /// decode after the utterance has ended, as a file's, uses ``encoderWindow``; partial results use
    /// ``partialEncoderWindow``. A transcriber ignores it.
    public var liveEncoderWindow: WhisperEncoderWindow
    /// The encoder window of a ``WhisperRecognizer``'s partial decodes (never followed by the full window:
    /// their text is provisional, and a word is shown only once two decodes agree on it):
    /// ``WhisperEncoderWindow/live`` by default. A tighter one (`fitted(minimum: 256, margin: 64)`) makes each
    /// partial decode cheaper, but in the README's load test it changed neither the partials' CPU (their
    /// pacing spends what a decode saves on more decodes) nor their lag beyond the runs' spread, and showed
    /// fewer words at one stream (BENCHMARKS.md), so it is not the default. A transcriber ignores it.
    public var partialEncoderWindow = WhisperEncoderWindow.live
    /// Whether a fitted window whose decode loops, is improbable, hears no speech or says nothing is
    /// decoded again over the full window (the default: a result's words). Without it — a
    /// ``WhisperRecognizer``'s partial results, whose text is provisional and which another decode
    /// follows within a second — a loop gives the window no text and anything else stands as decoded,
    /// where the full window's encoding would cost more than the partial decode itself.
    public var fullWindowFallback = true
    /// Whether every window's decode is bounded as a fitted window's is: stopped when its likeliest
    /// hypothesis loops (``WhisperSearch/endsInLoop(_:tokenizer:)``) or at sixteen tokens and ten a
    /// second of the window's audio, and then counted as repetitive, so the next temperature is tried.
    /// Off by default: a file's decode is faster-whisper's, which lets a loop run to half the text
    /// context at each of the six temperatures (27.6 s of CPU for `cards-004`'s 1.7 s of "five five"
    /// prompted with "5, 5, 5, …"). A ``WhisperRecognizer`` turns it on: a user waits for its answer,
    /// and other streams for its core.
    public var boundsLoops = false
    /// Text tokens the first window's decode must begin with, continued rather than decoded again
    /// (faster-whisper's `prefix`, as tokens): greedy decoding only (`beamSize` 1, `temperatures`
    /// `[0]`), at most a quarter of the model's text context. How a ``WhisperRecognizer``'s
    /// partial results extend the text two decodes agreed on.
    public var prefix: [Int] = []

    public init(
        beamSize: Int = defaultBeamSize, patience: Double = 1, lengthPenalty: Double = 1,
        temperatures: [Double] = [0, 0.2, 0.4, 0.6, 0.8, 1], bestOf: Int = 5,
        compressionRatioThreshold: Double? = 2.4, logProbabilityThreshold: Double? = -1,
        noSpeechThreshold: Double? = 0.6, conditionOnPreviousText: Bool = true, promptResetOnTemperature: Double = 0.5,
        initialPrompt: String? = nil, vocabulary: [String] = [], vocabularyBonus: Double = defaultVocabularyBonus,
        language: String? = nil, suppressBlank: Bool = true, suppressTokens: [Int]? = nil,
        withoutTimestamps: Bool = false, maxInitialTimestamp: Double = 1, wordTimestamps: Bool = true,
        encoderWindow: WhisperEncoderWindow = .full, liveEncoderWindow: WhisperEncoderWindow = .live
    ) {
        self.beamSize = beamSize
        self.patience = patience
        self.lengthPenalty = lengthPenalty
        self.temperatures = temperatures
        self.bestOf = bestOf
        self.compressionRatioThreshold = compressionRatioThreshold
        self.logProbabilityThreshold = logProbabilityThreshold
        self.noSpeechThreshold = noSpeechThreshold
        self.conditionOnPreviousText = conditionOnPreviousText
        self.promptResetOnTemperature = promptResetOnTemperature
        self.initialPrompt = initialPrompt
        self.vocabulary = vocabulary
        self.vocabularyBonus = vocabularyBonus
        self.language = language
        self.suppressBlank = suppressBlank
        self.suppressTokens = suppressTokens
        self.withoutTimestamps = withoutTimestamps
        self.maxInitialTimestamp = maxInitialTimestamp
        self.wordTimestamps = wordTimestamps
        self.encoderWindow = encoderWindow
        self.liveEncoderWindow = liveEncoderWindow
    }

    /// Checks every field, naming the one out of range.
    /// The beam widths accepted.
    public static let beamSizes: ClosedRange<Int> = 1...64

    public func validate() throws {
        func fail(_ field: String, _ expected: String) -> EarshotError {
            EarshotError(.invalidParameter, "whisper \(field): expected \(expected)")
        }
        guard Self.beamSizes.contains(beamSize) else { throw fail("beamSize \(beamSize)", "1–64") }
        guard patience > 0, patience.isFinite else { throw fail("patience \(patience)", "a positive number") }
        guard lengthPenalty.isFinite else { throw fail("lengthPenalty", "a finite number") }
        guard !temperatures.isEmpty, temperatures.allSatisfy({ $0 >= 0 && $0.isFinite }) else {
            throw fail("temperatures \(temperatures)", "one or more temperatures ≥ 0")
        }
        guard (1...64).contains(bestOf) else { throw fail("bestOf \(bestOf)", "1–64") }
        guard maxInitialTimestamp >= 0, maxInitialTimestamp.isFinite else {
            throw fail("maxInitialTimestamp \(maxInitialTimestamp)", "seconds ≥ 0")
        }
        guard (0...5).contains(vocabularyBonus) else {
            throw fail("vocabularyBonus \(vocabularyBonus)", "0–5 (nats per token)")
        }
        guard vocabulary.count <= 10_000 else { throw fail("vocabulary (\(vocabulary.count) words)", "at most 10 000") }
        if let problem = encoderWindow.problem { throw fail("encoderWindow \(encoderWindow)", problem) }
        if let problem = liveEncoderWindow.problem {
            throw fail("liveEncoderWindow \(liveEncoderWindow)", problem)
        }
        if let problem = partialEncoderWindow.problem {
            throw fail("partialEncoderWindow \(partialEncoderWindow)", problem)
        }
        if !prefix.isEmpty, beamSize != 1 || temperatures != [0] {
            throw fail("prefix (\(prefix.count) tokens)", "greedy decoding (beamSize 1, temperatures [0])")
        }
        if let skippedTail, !(skippedTail >= 0 && skippedTail.isFinite) {
            throw fail("skippedTail \(skippedTail)", "seconds ≥ 0")
        }
        if let initialPrompt, initialPrompt.utf8.count > 4096 {
            throw fail("initialPrompt (\(initialPrompt.utf8.count) bytes)", "at most 4 096 bytes")
        }
    }
}
