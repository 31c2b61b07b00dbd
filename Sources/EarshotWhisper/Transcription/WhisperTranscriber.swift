import CZlib
public import EarshotCore
import EarshotRecognizer
import Foundation

/// One segment of a Whisper transcript: text between two timestamps, times in seconds from the
/// start of the audio transcribed.
public struct WhisperSegment: Sendable, Equatable {
    public var start: Double
    public var end: Double
    /// The text as decoded (with its leading space).
    public var text: String
    public var tokens: [Int]
    /// The window's average log-probability per token, end included.
    public var averageLogProbability: Double
    /// The window's no-speech probability.
    public var noSpeechProbability: Double
    public var compressionRatio: Double
    /// The temperature the window was decoded at (0 unless it fell back).
    public var temperature: Double
    /// The words (text with any leading space and attached punctuation), times in seconds from the
    /// start of the audio, Whisper's probability as the confidence (empty without word timestamps).
    public var words: [TimedWord]
}

/// Transcribes 16 kHz audio of any length as faster-whisper's `WhisperModel.transcribe` does (the
/// reference Earshot is checked against), window by window: the log-mel spectrogram of the whole
/// audio; 30 s windows (3 000 frames, zero-padded); each decoded with the text before it as a prompt,
/// at temperature 0 and again at higher ones while the result is too repetitive or too improbable;
/// windows that sound silent skipped; segments cut at timestamp pairs; the next window starting at
/// the last complete segment's end (or last word's), so nothing is cut mid-word. With a fitted
/// ``WhisperOptions/encoderWindow`` a window's encoder runs over its audio plus a margin instead of 30 s
/// (``WhisperEncoderWindow``); its timestamps stop at the window's end and its times at the audio's.
///
/// Holds an encoder, a decoder and their buffers for one stream of work (not thread-safe); the model
/// is shared.
public final class WhisperTranscriber {
    public let model: WhisperModel
    /// The options ``transcribe(_:options:isCancelled:)`` uses unless given others.
    public let options: WhisperOptions
    private let spectrogram: LogMelSpectrogram
    private let encoder: WhisperEncoder
    private var decoder: WhisperDecoder
    private let window: UnsafeMutablePointer<Float>
    /// The vocabulary bias last built, and the words and bonus it was built from: a service or a long
    /// recording calls ``transcribe(_:options:isCancelled:)`` once per segment with the same options,
    /// and tokenizing a large vocabulary each time would repeat the same work.
    private var bias: (words: [String], bonus: Double, order: WordOrder?, value: VocabularyBias?)?
    /// The language the last ``transcribe(_:options:isCancelled:)`` decoded, detected or given.
    public private(set) var language: WhisperLanguage?
    /// Fitted windows decoded again in full (their first decode looped, was improbable, or said nothing).
    public private(set) var fallbacksToFullWindow = 0
    /// Decodes stopped on a loop (``WhisperSearch/endsInLoop(_:tokenizer:)``) before their bound: a fitted
    /// window's, or with ``WhisperOptions/boundsLoops`` any window's try at one temperature.
    public private(set) var loopsCutShort = 0

    /// Mel frames per second (10 ms hop) and per timestamp token (20 ms).
    static let framesPerSecond = 100.0
    static let secondsPerTimestamp = 0.02

    public init(model: WhisperModel, options: WhisperOptions = WhisperOptions()) throws {
        try options.validate()
        if let language = options.language { try model.requireLanguage(language) }
        try model.requireTask(options.task)
        self.model = model
        self.options = options
        spectrogram = LogMelSpectrogram(melBins: model.dimensions.melBins)
        encoder = WhisperEncoder(model: model)
        decoder = WhisperDecoder(model: model, capacity: max(options.beamSize, options.bestOf))
        window = .allocate(capacity: encoder.inputFrames * model.dimensions.melBins)
    }

    deinit { window.deallocate() }

    /// The segments of `samples` (16 kHz mono), times from its first sample, decoded with `options`
    /// (the transcriber's own when nil). `isCancelled` is asked between encoder layers and decoding
    /// steps (every few milliseconds of work); a cancelled transcription throws `.canceled`.
    public func transcribe(
        _ samples: UnsafeBufferPointer<Float>, options given: WhisperOptions? = nil,
        isCancelled: @escaping () -> Bool = { false }
    ) throws -> [WhisperSegment] {
        try transcribe(samples, options: given, isCancelled: isCancelled, after: nil, settlingOnly: false).segments
    }

    /// `samples` transcribed from where `previous` (the same audio's first windows, decoded before more of
    /// it came) left off: its segments and then the rest's. With `settlingOnly`, only the windows with
    /// audio after them are decoded — those a longer stream decodes the same way — and the rest is left
    /// for a later call; without, the audio is decoded to its end. Nothing settled yet (no window) is a
    /// fresh start: the first window is prompted with ``WhisperOptions/initialPrompt``.
    public func transcribe(
        _ samples: UnsafeBufferPointer<Float>, options given: WhisperOptions? = nil,
        isCancelled: @escaping () -> Bool = { false }, after previous: WhisperWindowsSettled?, settlingOnly: Bool
    ) throws -> WhisperWindowsSettled {
        let settled = previous.flatMap { $0.seek > 0 ? $0 : nil }
        let options = given ?? self.options
        if given != nil { try options.validate() }
        if let language = options.language { try model.requireLanguage(language) }
        try model.requireTask(options.task)
        let hypotheses = max(options.beamSize, options.bestOf)
        if decoder.capacity < hypotheses { decoder = WhisperDecoder(model: model, capacity: hypotheses) }
        guard !samples.isEmpty else { return settled ?? WhisperWindowsSettled() }
        let tokenizer = model.tokenizer
        let mels = model.dimensions.melBins
        let (frames, features) = spectrogram(samples)
        let contentFrames = frames - 1
        let windowFrames = encoder.inputFrames
        if options.prefix.count > model.dimensions.textContext / 4 {
            throw EarshotError(
                .invalidParameter,
                "whisper: prefix of \(options.prefix.count) tokens; expected at most "
                    + "\(model.dimensions.textContext / 4) (a quarter of the text context)")
        }
        let language = try settled?.language ?? languageFor(features: features, frames: frames, options: options)
        self.language = language
        let startSequence = try tokenizer.startSequence(language: language.code, task: options.task)
        var search = WhisperSearch(
            decoder: decoder,
            filter: LogitFilter(
                tokenizer: tokenizer, suppressed: options.suppressTokens ?? tokenizer.defaultSuppressedTokens,
                suppressedAtBegin: options.suppressBlank ? model.suppressedAtBegin : [],
                timestamps: !options.withoutTimestamps,
                maxInitialTimestampIndex: Int((options.maxInitialTimestamp / Self.secondsPerTimestamp).rounded())),
            bias: vocabularyBias(options),
            lengthPenalty: options.lengthPenalty, isCancelled: isCancelled)
        defer { search.deallocate() }

        var allTokens: [Int] = []
        if let settled {
            allTokens = settled.prompt
        } else if let prompt = options.initialPrompt?.trimmingCharacters(in: .whitespacesAndNewlines), !prompt.isEmpty {
            allTokens = tokenizer.encode(" " + prompt)
        }
        var promptResetSince = 0
        var lastSpeech = settled?.lastSpeech ?? 0
        var segments = settled?.segments ?? []
        var seek = settled?.seek ?? 0
        // Settling: only a window with audio after it, which a longer stream would decode the same way.
        while settlingOnly ? contentFrames - seek > windowFrames : seek < contentFrames {
            if isCancelled() { throw EarshotError(.canceled, "whisper: transcription cancelled") }
            let timeOffset = Double(seek) / Self.framesPerSecond
            let size = min(windowFrames, contentFrames - seek)
            // A fitted window encodes `positions` (≥ its audio) of the 1 500, its timestamps limited to them.
            var positions = options.encoderWindow.positions(contentFrames: size, audioContext: encoder.inputFrames / 2)
            var fitted = 2 * positions < windowFrames
            func encode() throws {
                window.update(repeating: 0, count: 2 * positions * mels)
                features.withUnsafeBufferPointer {
                    window.update(from: $0.baseAddress! + seek * mels, count: size * mels)
                }
                guard encoder.encode(window, contentFrames: size, positions: positions, isCancelled: isCancelled) else {
                    throw EarshotError(.canceled, "whisper: transcription cancelled")
                }
                decoder.begin(encoderOutput: encoder.output, positions: positions)
                search.filter.latestTimestampIndex = fitted ? positions : nil
            }
            try encode()

            let previous = Array(allTokens[promptResetSince...])
            var prompt: [Int] = []
            if !previous.isEmpty {
                prompt = [tokenizer.startOfPrevious] + previous.suffix(model.dimensions.textContext / 2 - 1)
            }
            prompt += startSequence
            if options.withoutTimestamps { prompt.append(tokenizer.noTimestamps) }
            // The first window continues the prefix, from the window's first timestamp when it has them.
            let forced =
                seek == 0 && !options.prefix.isEmpty
                ? (options.withoutTimestamps ? [] : [tokenizer.timestampBegin]) + options.prefix : []

            var decoded: Decoded
            // A bounded decode's most tokens: speech is a few tokens a second, so a decode still going at
            // ten a second (and 16 more) is looping.
            let bound = 16 + 10 * size / Int(Self.framesPerSecond)
            if fitted {
                // A fitted window is tried once, at the first temperature. Whisper knows only 30 s windows:
                // when the shorter one loops, is improbable, hears no speech or says nothing, the window
                // is encoded again in full and decoded as any other (BENCHMARKS.md, "a shorter encoder window").
                // A loop is cut short, at the bound or as soon as the likeliest hypothesis repeats itself
                // (``WhisperSearch/endsInLoop(_:tokenizer:)``: most loops are seen within a dozen
                // tokens), and the full window will decode the audio anyway.
                var once = options
                once.temperatures = Array(options.temperatures.prefix(1))
                decoded = try decodeWithFallback(
                    search: search, prompt: prompt, seed: UInt64(seek), options: once, bound: bound, forced: forced)
                let saysNothing = !(forced + decoded.tokens).contains { $0 < tokenizer.endOfText }
                let looped = decoded.looped || decoded.reachedBound
                if !options.fullWindowFallback {
                    // Provisional text: a loop says nothing; anything else stands as decoded.
                    if looped { decoded.tokens = [] }
                } else if looped || needsFallback(decoded, options: options) || saysNothing
                    || isSilent(decoded, options: options)
                {
                    fallbacksToFullWindow += 1
                    positions = encoder.inputFrames / 2
                    fitted = false
                    try encode()
                    decoded = try decodeWithFallback(
                        search: search, prompt: prompt, seed: UInt64(seek), options: options,
                        bound: options.boundsLoops ? bound : nil, forced: forced)
                }
            } else {
                decoded = try decodeWithFallback(
                    search: search, prompt: prompt, seed: UInt64(seek), options: options,
                    bound: options.boundsLoops ? bound : nil, forced: forced)
            }
            decoded.tokens = forced + decoded.tokens
            if isSilent(decoded, options: options) {
                seek += size
                continue
            }
            let previousSeek = seek
            var (windowSegments, nextSeek, singleTimestampEnding) = split(
                decoded.tokens, timeOffset: timeOffset, size: size, seek: seek)
            if options.wordTimestamps {
                let text = windowSegments.flatMap { $0.tokens.filter { $0 < tokenizer.endOfText } }
                if let alignment = TokenAlignment.align(
                    text: text, frames: size, decoder: decoder, startSequence: startSequence)
                {
                    let aligned = WordTiming.alignedWords(text: text, alignment: alignment, tokenizer: tokenizer)
                    lastSpeech = WordTiming.assign(
                        aligned, to: &windowSegments, offset: timeOffset, lastSpeech: lastSpeech, tokenizer: tokenizer)
                }
                if !singleTimestampEnding, let lastWordEnd = Self.lastEnd(windowSegments), lastWordEnd > timeOffset {
                    nextSeek = Int((lastWordEnd * Self.framesPerSecond).rounded(.toNearestOrEven))
                    // The last window saw the audio after its last word: decoded alone it holds no speech,
                    // and a prompted Whisper fills it with the prompt (``WhisperOptions/skippedTail``).
                    let tail = Double(contentFrames - nextSeek) / Self.framesPerSecond
                    if seek + size == contentFrames, let limit = options.skippedTail, tail <= limit {
                        nextSeek = contentFrames
                    }
                }
                if let lastWordEnd = Self.lastEnd(windowSegments) { lastSpeech = lastWordEnd }
            }
            // Always forward, whatever the timestamps said.
            seek = nextSeek > previousSeek ? nextSeek : previousSeek + size
            if fitted {
                // The window's padding is audio no one said anything in: no time reaches past the audio.
                Self.clamp(&windowSegments, to: timeOffset + Double(size) / Self.framesPerSecond)
            }
            for segment in windowSegments {
                let text = tokenizer.decode(segment.tokens)
                if segment.start == segment.end || text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                allTokens += segment.tokens
                segments.append(
                    WhisperSegment(
                        start: segment.start, end: segment.end, text: text, tokens: segment.tokens,
                        averageLogProbability: decoded.averageLogProbability,
                        noSpeechProbability: Double(decoded.noSpeech), compressionRatio: decoded.compressionRatio,
                        temperature: decoded.temperature,
                        words: segment.words.map {
                            TimedWord(word: $0.word, start: $0.start, end: $0.end, confidence: $0.probability)
                        }))
            }
            if !options.conditionOnPreviousText || decoded.temperature > options.promptResetOnTemperature {
                promptResetSince = allTokens.count
            }
        }
        var result = WhisperWindowsSettled()
        (result.segments, result.seek, result.lastSpeech, result.language) = (segments, seek, lastSpeech, language)
        result.prompt = Array(allTokens[promptResetSince...])
        return result
    }

    /// The bias `options` ask for, built once for each vocabulary and bonus.
    private func vocabularyBias(_ options: WhisperOptions) -> VocabularyBias? {
        if let bias, bias.words == options.vocabulary, bias.bonus == options.vocabularyBonus,
            bias.order == options.vocabularyOrder
        {
            return bias.value
        }
        let value = VocabularyBias(
            words: options.vocabulary, bonus: options.vocabularyBonus, tokenizer: model.tokenizer,
            order: options.vocabularyOrder)
        bias = (options.vocabulary, options.vocabularyBonus, options.vocabularyOrder, value)
        return value
    }

    /// The first window of `samples` decoded once at temperature 0 with `options`' search and prompt
    /// rules, no fallback: the decode a parity check compares with the reference runtime's, which
    /// cannot compare samples drawn at higher temperatures.
    func decodeFirstWindow(_ samples: UnsafeBufferPointer<Float>, options: WhisperOptions) throws
        -> (hypothesis: WhisperSearch.Hypothesis, noSpeechProbability: Float)
    {
        let tokenizer = model.tokenizer
        let mels = model.dimensions.melBins
        let (frames, features) = spectrogram(samples)
        let size = min(encoder.inputFrames, frames - 1)
        window.update(repeating: 0, count: encoder.inputFrames * mels)
        features.withUnsafeBufferPointer { window.update(from: $0.baseAddress!, count: size * mels) }
        encoder.encode(window, contentFrames: size)
        if decoder.capacity < options.beamSize { decoder = WhisperDecoder(model: model, capacity: options.beamSize) }
        decoder.begin(encoderOutput: encoder.output)
        let search = WhisperSearch(
            decoder: decoder,
            filter: LogitFilter(
                tokenizer: tokenizer, suppressed: options.suppressTokens ?? tokenizer.defaultSuppressedTokens,
                suppressedAtBegin: options.suppressBlank ? model.suppressedAtBegin : [], timestamps: true,
                maxInitialTimestampIndex: Int((options.maxInitialTimestamp / Self.secondsPerTimestamp).rounded())),
            lengthPenalty: options.lengthPenalty, isCancelled: { false })
        defer { search.deallocate() }
        let result = try search.run(
            prompt: try tokenizer.startSequence(language: options.language, task: options.task),
            strategy: options.beamSize > 1 ? .beam(size: options.beamSize, patience: options.patience) : .greedy)
        return (result.hypotheses[0], result.noSpeechProbability)
    }

    /// Moves every segment and word time after `end` (the window's audio's end) back to it.
    static func clamp(_ segments: inout [WordTiming.Segment], to end: Double) {
        for s in segments.indices {
            segments[s].start = min(segments[s].start, end)
            segments[s].end = min(segments[s].end, end)
            for w in segments[s].words.indices {
                segments[s].words[w].start = min(segments[s].words[w].start, end)
                segments[s].words[w].end = min(segments[s].words[w].end, end)
            }
        }
    }

    /// The end of the last word of `segments`, else of the last segment.
    private static func lastEnd(_ segments: [WordTiming.Segment]) -> Double? {
        for segment in segments.reversed() { if let word = segment.words.last { return word.end } }
        return segments.last?.end
    }

    private struct Decoded {
        var tokens: [Int]
        var averageLogProbability: Double
        var noSpeech: Float
        var temperature: Double
        var compressionRatio: Double
        /// The search stopped on a loop (``WhisperSearch/Result/looped``).
        var looped = false
        /// The search stopped at its bound of tokens.
        var reachedBound = false
    }

    /// Whether a decode compresses too well (text looping on itself), or was stopped on a loop or at its
    /// bound before it could show it.
    private func isRepetitive(_ decoded: Decoded, options: WhisperOptions) -> Bool {
        decoded.looped || decoded.reachedBound
            || (options.compressionRatioThreshold.map { decoded.compressionRatio > $0 } ?? false)
    }

    /// Whether a decode is to be tried again at the next temperature: too repetitive or too improbable,
    /// unless the model hears no speech in it and it is improbable (faster-whisper's rule, exactly).
    private func needsFallback(_ decoded: Decoded, options: WhisperOptions) -> Bool {
        let improbable = options.logProbabilityThreshold.map { decoded.averageLogProbability < $0 } ?? false
        if let noSpeech = options.noSpeechThreshold, options.logProbabilityThreshold != nil,
            Double(decoded.noSpeech) > noSpeech, improbable
        {
            return false
        }
        return isRepetitive(decoded, options: options) || improbable
    }

    /// Whether a window is skipped as silence: the model's no-speech probability over its threshold and
    /// the text not probable enough to keep anyway.
    private func isSilent(_ decoded: Decoded, options: WhisperOptions) -> Bool {
        guard let threshold = options.noSpeechThreshold, Double(decoded.noSpeech) > threshold else { return false }
        return !(options.logProbabilityThreshold.map { decoded.averageLogProbability > $0 } ?? false)
    }

    /// faster-whisper's `generate_with_fallback`: temperature 0 first (beam or greedy), then sampling
    /// at each higher temperature while the text compresses too well or the average log-probability is
    /// too low (unless the window is silence); if every try fails, the likeliest of those that were not
    /// repetitive.
    /// `forced` tokens are continued (``WhisperSearch/run(prompt:strategy:maxSteps:forced:)``); the
    /// decode's tokens are what follows them. With a `bound`, each try stops on a loop or at that many
    /// steps, and such a try is repetitive.
    private func decodeWithFallback(
        search: WhisperSearch, prompt: [Int], seed: UInt64, options: WhisperOptions, bound: Int?, forced: [Int] = []
    ) throws -> Decoded {
        var all: [Decoded] = []
        var notRepetitive: [Decoded] = []
        var lastTemperature = 0.0
        for (attempt, temperature) in options.temperatures.enumerated() {
            lastTemperature = temperature
            if attempt > 0 { decoder.restart() }
            let strategy: WhisperSearch.Strategy =
                temperature > 0
                ? .sample(temperature: temperature, count: options.bestOf, seed: seed &* 1_000_003 &+ UInt64(attempt))
                : (options.beamSize > 1 ? .beam(size: options.beamSize, patience: options.patience) : .greedy)
            let result = try search.run(
                prompt: prompt, strategy: strategy, maxSteps: bound, forced: forced, stopsOnLoop: bound != nil)
            if result.looped { loopsCutShort += 1 }
            let best =
                result.hypotheses.first
                ?? WhisperSearch.Hypothesis(tokens: [], logProbability: 0, bias: 0, score: 0, tokenLogProbabilities: [])
            let length = Double(best.tokens.count)
            // The model's own Σ log p (faster-whisper recovers it from the score), without the bias.
            let cumulative = Double(best.score) * pow(length, options.lengthPenalty) - Double(best.bias)
            let decoded = Decoded(
                tokens: best.tokens, averageLogProbability: cumulative / (length + 1),
                noSpeech: result.noSpeechProbability,
                temperature: temperature,
                compressionRatio: Self.compressionRatio(
                    model.tokenizer.decode(best.tokens).trimmingCharacters(in: .whitespaces)),
                looped: result.looped, reachedBound: bound.map { best.tokens.count >= $0 - 1 } ?? false)
            all.append(decoded)
            if !isRepetitive(decoded, options: options) { notRepetitive.append(decoded) }
            if !needsFallback(decoded, options: options) { return decoded }
        }
        var chosen = (notRepetitive.isEmpty ? all : notRepetitive).max {
            $0.averageLogProbability < $1.averageLogProbability
        }!
        chosen.temperature = lastTemperature
        return chosen
    }

    /// Cuts a window's tokens into segments at each pair of timestamps (faster-whisper's
    /// `_split_segments_by_timestamps`), and says where the next window starts: after the window if it
    /// ended on a single timestamp (nothing is left unsaid), else at the last complete segment's end.
    private func split(_ tokens: [Int], timeOffset: Double, size: Int, seek: Int)
        -> (segments: [WordTiming.Segment], seek: Int, singleTimestampEnding: Bool)
    {
        let begin = model.tokenizer.timestampBegin
        let singleEnding = tokens.count >= 2 && tokens[tokens.count - 2] < begin && tokens[tokens.count - 1] >= begin
        let consecutive = tokens.indices.filter { $0 > 0 && tokens[$0] >= begin && tokens[$0 - 1] >= begin }
        func time(_ token: Int) -> Double { timeOffset + Double(token - begin) * Self.secondsPerTimestamp }
        if consecutive.isEmpty {
            var duration = Double(size) / Self.framesPerSecond
            if let last = tokens.last(where: { $0 >= begin }), last != begin {
                duration = Double(last - begin) * Self.secondsPerTimestamp
            }
            return (
                [WordTiming.Segment(start: timeOffset, end: timeOffset + duration, tokens: tokens)], seek + size,
                singleEnding
            )
        }
        var slices = consecutive
        if singleEnding { slices.append(tokens.count) }
        var segments: [WordTiming.Segment] = []
        var lastSlice = 0
        for slice in slices {
            let piece = Array(tokens[lastSlice..<slice])
            segments.append(WordTiming.Segment(start: time(piece.first!), end: time(piece.last!), tokens: piece))
            lastSlice = slice
        }
        let next = singleEnding ? seek + size : seek + (tokens[lastSlice - 1] - begin) * 2
        return (segments, next, singleEnding)
    }

    /// `len(text) / len(zlib.compress(text))` over the UTF-8 bytes, at zlib's default level, as
    /// faster-whisper measures repetition.
    static func compressionRatio(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&output, &length, bytes, uLong(bytes.count), Z_DEFAULT_COMPRESSION)
        guard status == Z_OK, length > 0 else { return 0 }
        return Double(bytes.count) / Double(length)
    }

    /// The language to transcribe and its probability: the option (probability 1), English for an
    /// English-only model, or for a multilingual model without one, the language detected on the first
    /// window (``detectLanguage(features:frames:)``).
    private func languageFor(features: [Float], frames: Int, options: WhisperOptions) throws -> WhisperLanguage {
        if let language = options.language {
            // Refused unless the model speaks it: an English-only model never decodes `fr` as English.
            try model.requireLanguage(language)
            return WhisperLanguage(code: language, probability: 1)
        }
        guard model.tokenizer.isMultilingual else { return WhisperLanguage(code: "en", probability: 1) }
        return detectLanguage(features: features, frames: frames)[0]
    }

    /// The languages of `samples` (16 kHz mono), likeliest first, by the model's probability of each
    /// language token after `<|startoftranscript|>` on the first 30 s (as faster-whisper detects).
    /// An English-only model hears English, with probability 1.
    public func detectLanguage(_ samples: UnsafeBufferPointer<Float>) -> [WhisperLanguage] {
        guard model.tokenizer.isMultilingual else { return [WhisperLanguage(code: "en", probability: 1)] }
        let (frames, features) = spectrogram(UnsafeBufferPointer(rebasing: samples.prefix(30 * 16_000)))
        return detectLanguage(features: features, frames: frames)
    }

    /// faster-whisper's `detect_language` on the first window: the whole spectrogram up to 3 000 frames
    /// (its last frame included, unlike a decoding window), zero-padded, encoded; one decoder step on
    /// `<|startoftranscript|>`; a softmax over the language tokens' logits alone.
    private func detectLanguage(features: [Float], frames: Int) -> [WhisperLanguage] {
        let tokenizer = model.tokenizer
        let mels = model.dimensions.melBins
        let size = min(encoder.inputFrames, frames)
        window.update(repeating: 0, count: encoder.inputFrames * mels)
        features.withUnsafeBufferPointer { window.update(from: $0.baseAddress!, count: size * mels) }
        encoder.encode(window, contentFrames: size)
        decoder.begin(encoderOutput: encoder.output)
        decoder.run(tokens: [tokenizer.startOfTranscript], perHypothesis: 1, logitRows: [0])
        let logits = tokenizer.languages.map { Double(decoder.logits[$0.token]) }
        let largest = logits.max() ?? 0
        let exponentials = logits.map { exp($0 - largest) }
        let total = exponentials.reduce(0, +)
        return zip(tokenizer.languages, exponentials)
            .map { WhisperLanguage(code: $0.0.code, probability: $0.1 / total) }
            .sorted { $0.probability > $1.probability }
    }
}

/// A language Whisper transcribes (its ISO 639-1 code, as Whisper's tokens spell it) and how likely
/// the model found it in the audio (1 when it was given rather than detected).
public struct WhisperLanguage: Sendable, Equatable {
    public var code: String
    public var probability: Double

    public init(code: String, probability: Double) {
        self.code = code
        self.probability = probability
    }
}
