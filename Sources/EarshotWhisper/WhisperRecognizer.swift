public import EarshotCore
public import EarshotRecognizer
import Foundation

/// Whisper as a ``Recognizer``: 16 kHz mono utterances (the VAD chunker's segments, a service
/// request's audio) transcribed by ``WhisperTranscriber`` when the utterance ends, with segment and word
/// times placed in the stream's media time.
///
/// Whisper reads a whole window at once, so audio is gathered as it arrives and decoded at
/// ``endUtterance()``; an utterance longer than 30 s is decoded window by window. ``partialResult()``
/// re-decodes the audio so far greedily (no fallback, no word times) at most once per second of new
/// audio and reports the words that two consecutive decodes agree on, so a live client sees text that
/// does not flicker.
///
/// Audio that never rises above −50 dBFS (digital silence, an idle line) gives no hypothesis and is not
/// decoded: Whisper, asked to transcribe silence, writes a likely word ("You", with a no-speech
/// probability of 0.94 but an average log-probability just above −1), where a recognizer should say it
/// heard nothing (the Speech API's "No Speech"). Quiet speech peaks well above that floor.
///
/// The result's hypothesis is the transcript with Whisper's casing and punctuation; its words are the
/// transcript's space-separated words (Whisper's own pieces joined where no space parts them, as
/// "old" and "-sposed"; punctuation attached) with their alignment times and probabilities (the mean
/// of the pieces'); its confidence is the mean word probability.
///
/// Holds one transcriber's buffers (tens of megabytes); the ``WhisperModel`` is shared. A class, as the
/// service's recognizers are: lent to one request at a time.
public final class WhisperRecognizer: Recognizer {
    /// 16 kHz mono: what Whisper hears.
    public let format = AudioFormat.wideband
    public let model: WhisperModel
    /// How utterances are decoded, unless a request's options change it for one utterance.
    public let options: WhisperOptions
    private let transcriber: WhisperTranscriber
    private var samples: [Float] = []
    private var startFrame: Int64?
    private var endFrame: Int64 = 0
    private var isOpen = false
    private var requestOptions = RecognitionRequestOptions.none
    /// The partial decodes: samples decoded at the last one, and its text tokens.
    private var lastPartial: (samples: Int, tokens: [Int])?
    /// When the last partial decode ended and how long it took (with ``PartialPacing/sharingTime``).
    private var lastPartialTiming: (ended: ContinuousClock.Instant, took: Duration)?
    /// How often ``partialResult()`` decodes the open utterance again.
    public let partialPacing: PartialPacing
    /// How many partial decodes this recognizer has run, over all its utterances.
    public private(set) var partialDecodes = 0
    private var utterancePartialDecodes = 0

    /// How often partial results re-decode the open utterance; each decode needs at least 1 s of new audio.
    public enum PartialPacing: Sendable {
        /// After the second decode of an utterance, the next waits at least as long as the last one took:
        /// partial decodes take at most half of the recognizer's time however fast audio arrives (a stream replayed faster than real time,
        /// a loaded machine), so the final result never queues behind them. For live streams.
        case sharingTime
        /// Every second of audio, however long a decode takes: the same partials whatever the machine's
        /// speed, for offline replays.
        case everySecondOfAudio
    }
    private var agreedPrefix: [Int] = []
    /// The loudest sample of the utterance so far, as an amplitude.
    private var peak: Float = 0
    /// Below this peak (−50 dBFS) an utterance is silence.
    public static let silencePeak: Float = 0.003_162_3

    public init(
        model: WhisperModel, options: WhisperOptions = WhisperOptions(), partialPacing: PartialPacing = .sharingTime
    ) throws {
        self.model = model
        self.options = options
        self.partialPacing = partialPacing
        transcriber = try WhisperTranscriber(model: model, options: options)
    }

    public func startUtterance() throws {
        guard !isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: an utterance is already open; end it before starting another")
        }
        isOpen = true
        samples.removeAll(keepingCapacity: true)
        startFrame = nil
        peak = 0
        lastPartial = nil
        lastPartialTiming = nil
        utterancePartialDecodes = 0
        agreedPrefix = []
    }

    public func accept(_ buffer: AudioBuffer) throws {
        try accept(buffer, frames: 0..<buffer.frameCount)
    }

    public func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws {
        guard isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: audio given with no utterance open; call startUtterance() first")
        }
        try buffer.requireFormat(format, stage: "Whisper")
        precondition(frames.lowerBound >= 0 && frames.upperBound <= buffer.frameCount, "frames outside the buffer")
        if frames.isEmpty { return }
        let first = buffer.startFrame + Int64(frames.lowerBound)
        if startFrame == nil {
            startFrame = first
        } else if first != endFrame {
            throw EarshotError(
                .invalidParameter,
                "Whisper: buffer starts at frame \(first) but the previous one ended at \(endFrame); buffers must be contiguous")
        }
        samples += buffer.samples[frames]
        for sample in buffer.samples[frames] { peak = max(peak, abs(sample)) }
        endFrame = first + Int64(frames.count)
    }

    public func setRequestOptions(_ options: RecognitionRequestOptions) throws {
        if let language = options.language {
            let tokenizer = model.tokenizer
            let known = tokenizer.isMultilingual ? tokenizer.languages.map(\.code) : ["en"]
            guard known.contains(language) else {
                throw EarshotError(
                    .invalidParameter,
                    "language '\(language)': this Whisper model transcribes "
                        + (tokenizer.isMultilingual ? "\(known.count) languages (\(known.prefix(10).joined(separator: ", ")), …)" : "English only (en)"))
            }
        }
        if let temperature = options.temperature, !(0...1).contains(temperature) {
            throw EarshotError(.invalidParameter, "temperature \(temperature): expected 0 to 1")
        }
        requestOptions = options
    }

    /// The options of this utterance: the recognizer's, with the request's language and prompt, and a
    /// temperature T meaning T, T + 0.2, … up to 1 (openai/whisper's fallback from T).
    private var utteranceOptions: WhisperOptions {
        var options = self.options
        if let language = requestOptions.language { options.language = language }
        if let prompt = requestOptions.prompt, !prompt.isEmpty { options.initialPrompt = prompt }
        if let temperature = requestOptions.temperature, temperature > 0 {
            options.temperatures = stride(from: temperature, through: 1.000_001, by: 0.2).map { min($0, 1) }
        }
        return options
    }

    public func partialResult() throws -> RecognitionResult? {
        guard isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: no utterance is open; call startUtterance() first")
        }
        let decodedBefore = lastPartial?.samples ?? 0
        let clock = ContinuousClock()
        // The first two decodes of an utterance run as audio comes, so a partial result (what they agree
        // on) comes as soon as it can; from the third on, sharing time bounds the work.
        let rested =
            partialPacing == .everySecondOfAudio || utterancePartialDecodes < 2
            || lastPartialTiming.map { clock.now - $0.ended >= $0.took } ?? true
        if samples.count - decodedBefore >= format.sampleRate, peak >= Self.silencePeak, rested {
            let started = clock.now
            defer { lastPartialTiming = (clock.now, clock.now - started) }
            partialDecodes += 1
            utterancePartialDecodes += 1
            var options = utteranceOptions
            options.beamSize = 1
            options.temperatures = [0]
            options.wordTimestamps = false
            let segments = try samples.withUnsafeBufferPointer {
                try transcriber.transcribe($0, options: options, isCancelled: { Task.isCancelled })
            }
            let tokens = segments.flatMap(\.tokens).filter { $0 < model.tokenizer.endOfText }
            if let previous = lastPartial?.tokens {
                agreedPrefix = Array(zip(previous, tokens).prefix { $0 == $1 }.map(\.0))
            }
            lastPartial = (samples.count, tokens)
        }
        let text = model.tokenizer.decode(agreedPrefix).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, let startFrame else { return nil }
        return RecognitionResult(
            hypotheses: [Hypothesis(text: text, confidence: nil, words: [])], start: mediaTime(startFrame),
            end: mediaTime(endFrame), isPartial: true)
    }

    public func endUtterance() throws -> RecognitionResult {
        guard isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: no utterance is open; call startUtterance() first")
        }
        isOpen = false
        let options = utteranceOptions
        requestOptions = .none
        let start = startFrame ?? endFrame
        var result = RecognitionResult(hypotheses: [], start: mediaTime(start), end: mediaTime(endFrame), isPartial: false)
        guard peak >= Self.silencePeak else { return result }
        let segments: [WhisperSegment]
        do {
            segments = try samples.withUnsafeBufferPointer {
                try transcriber.transcribe($0, options: options, isCancelled: { Task.isCancelled })
            }
        } catch let error as EarshotError where error.code == .canceled {
            throw CancellationError()
        } catch let error as EarshotError {
            throw error
        } catch {
            throw EarshotError(.recognizerFailed, "Whisper failed to decode the utterance: \(error)")
        }
        let text = segments.map(\.text).joined().trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return result }
        let rate = Double(format.sampleRate)
        var words: [RecognizedWord] = []
        var pieces = 0
        for (index, word) in segments.flatMap(\.words).enumerated() {
            let spelled = word.word.trimmingCharacters(in: .whitespaces)
            guard !spelled.isEmpty else { continue }
            let end = mediaTime(start + Int64((word.end * rate).rounded()))
            if index > 0, !word.word.hasPrefix(" "), !words.isEmpty {
                // A piece of the word before (no space between them in the text).
                pieces += 1
                let last = words.count - 1
                words[last].word += spelled
                words[last].end = max(words[last].end, end)
                words[last].confidence += ((word.confidence ?? 0) - words[last].confidence) / Double(pieces)
                continue
            }
            pieces = 1
            words.append(
                RecognizedWord(
                    word: spelled, start: mediaTime(start + Int64((word.start * rate).rounded())), end: end,
                    confidence: word.confidence ?? 0))
        }
        let confidence =
            words.isEmpty
            ? segments.first.map { Foundation.exp($0.averageLogProbability) }
            : words.map(\.confidence).reduce(0, +) / Double(words.count)
        result.hypotheses = [Hypothesis(text: text, confidence: confidence, words: words)]
        return result
    }

    /// Drops the open utterance: nothing is decoded.
    public func abandonUtterance() {
        isOpen = false
        requestOptions = .none
        samples.removeAll(keepingCapacity: true)
    }

    private func mediaTime(_ frame: Int64) -> MediaTime { MediaTime(frame: frame, sampleRate: format.sampleRate) }
}
