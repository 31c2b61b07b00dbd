public import EarshotCore
public import EarshotRecognizer
import Foundation

/// Whisper as a ``Recognizer``: 16 kHz mono utterances (the VAD chunker's segments, a service
/// request's audio) transcribed by ``WhisperTranscriber`` when the utterance ends, with segment and word
/// times placed in the stream's media time.
///
/// Whisper reads a whole window at once, so audio is gathered as it arrives and decoded at
/// ``endUtterance()``; an utterance longer than 30 s is decoded window by window, each window with
/// audio after it as soon as that audio has come (``WhisperWindowsSettled``), so that only the last is
/// left when the speaker stops. ``partialResult()``
/// decodes the audio so far greedily (no fallback, no word times) at most once per second of new
/// audio and reports the words confirmed so far: whisper_streaming's LocalAgreement-2 policy, where
/// the words two consecutive decodes agree on are confirmed, and each later decode continues the
/// confirmed words (``WhisperOptions/prefix``) rather than decoding them again. A live client sees
/// text that only grows, and a partial decode's search covers only the words not yet confirmed. For a
/// live stream (``PartialPacing/sharingTime``) the partial decode runs on a thread of its own
/// (``WhisperBackgroundDecode``): ``partialResult()`` begins it and a later call takes its text in, so
/// the stream's reading never waits for provisional text.
/// The final decode is independent of the partials: a file's words, whatever the partials said, except
/// that a window whose decode loops stops at the loop and tries the next temperature
/// (``WhisperOptions/boundsLoops``) rather than running to half the text context at each.
///
/// Decodes share the process's cores through ``ComputeSlots``: a final decode (or one begun at a
/// pause) waits for a core in order of arrival; a partial decode runs only on a core no final decode
/// waits for, and stops when one comes to wait.
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

    /// How often partial results re-decode the open utterance; each decode needs at least 1 s of new audio.
    public enum PartialPacing: Sendable {
        /// Once two decodes of an utterance agree on its first words, the next waits at least as long as
        /// the last one took: partial decodes take at most half of the recognizer's time however fast
        /// audio arrives (a stream replayed faster than real time, a loaded machine). And they run
        /// only on a core no result waits for (``ComputeSlots/runProvisional(_:)``): with more streams
        /// than cores, partial results thin out and final results keep their pace. For live streams.
        case sharingTime
        /// Every second of audio, however long a decode takes, each waiting its turn for a core: the
        /// same partials whatever the machine's speed or load, for offline replays.
        case everySecondOfAudio
    }
    /// The utterance's confirmed text tokens: only ever extended, and continued by each partial decode.
    private var confirmed: [Int] = []
    /// The final decode begun when the speaker paused (``speechPaused(at:)``), if any.
    private var speculation: WhisperBackgroundDecode<WhisperWindowsSettled>?
    /// The partial decode under way on a thread of its own (``PartialPacing/sharingTime``, live), if any.
    private var partialDecode: WhisperBackgroundDecode<[WhisperSegment]>?
    /// The open utterance's windows decoded while it went on: the result's first segments.
    private var settled = WhisperWindowsSettled()
    /// The decode of the windows the audio has gone past, under way, if any.
    private var settling: WhisperBackgroundDecode<WhisperWindowsSettled>?
    /// A settling decode of the open utterance failed: the final decode does its windows (and says why).
    private var settlingFailed = false
    /// Decodes that settled windows of an utterance while the speaker went on, over all utterances.
    public private(set) var settlingDecodes = 0
    /// Whether the open utterance's audio arrives at the speaker's pace (``noteStreamPace(isLive:)``).
    private var streamIsLive = true
    /// The frame through which a pause's early decode hears the utterance, until audio reaches it.
    private var pendingPause: Int64?
    /// Silence after the speech's end that the decode begun at a pause hears, in seconds: the same
    /// trailing audio wherever the pause was seen (a client's 0.1 s chunks or its 0.4 s ones), so the
    /// same words. As short as the pause the service waits for (``PauseWatch``'s 0.15 s), so the decode
    /// begins as soon as the pause is seen: on the `real` corpus every trail from 0.1 to 0.35 s gave the
    /// same words (better than the whole recording's); on `synthetic`, which took no part in the
    /// choice, trails from 0.15 to 0.45 s gave WER 0.122 to 0.144, not ordered by the trail
    /// (`Benchmarks/whisper/pause_trail.py`, BENCHMARKS.md).
    public static let pauseTrail = 0.15
    /// Final decodes begun early, over all utterances: begun, used as the result, and stopped by
    /// returning speech before they finished (their CPU spared).
    public private(set) var earlyDecodes = EarlyDecodeTally()
    /// The transcriber's full-window fallbacks already counted in ``earlyDecodes``.
    private var fallbacksCounted = 0
    /// The longest audio decoded early after the settled windows: one window. (An utterance longer than
    /// that has its windows settled as it goes on; a pause before they are is decoded at the end.)
    public static let maxSpeculativeSamples = 30 * 16_000
    /// The loudest sample of the utterance so far, as an amplitude.
    private var peak: Float = 0
    /// Below this peak (−50 dBFS) an utterance is silence.
    public static let silencePeak: Float = 0.003_162_3

    /// The cores this recognizer's decodes share with the process's other decodes.
    public let slots: ComputeSlots

    /// `slots`: where decodes wait for a core (results first; partial decodes only when a core is
    /// idle), by default the process's.
    public init(
        model: WhisperModel, options: WhisperOptions = WhisperOptions(), partialPacing: PartialPacing = .sharingTime,
        slots: ComputeSlots = .shared
    ) throws {
        self.model = model
        self.options = options
        self.partialPacing = partialPacing
        self.slots = slots
        transcriber = try WhisperTranscriber(model: model, options: options)
    }

    public func startUtterance() throws {
        guard !isOpen else {
            throw EarshotError(
                .invalidParameter, "Whisper: an utterance is already open; end it before starting another")
        }
        retireSpeculation()
        retirePartialDecode()
        retireSettling()
        isOpen = true
        streamIsLive = true
        samples.removeAll(keepingCapacity: true)
        settled = WhisperWindowsSettled()
        settlingFailed = false
        startFrame = nil
        peak = 0
        lastPartial = nil
        lastPartialTiming = nil
        confirmed = []
    }

    public func accept(_ buffer: AudioBuffer) throws {
        try accept(buffer, frames: 0..<buffer.frameCount)
    }

    public func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws {
        guard isOpen else {
            throw EarshotError(
                .invalidParameter, "Whisper: audio given with no utterance open; call startUtterance() first")
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
                "Whisper: buffer starts at frame \(first) but the previous one ended at \(endFrame); buffers must be contiguous"
            )
        }
        samples += buffer.samples[frames]
        for sample in buffer.samples[frames] { peak = max(peak, abs(sample)) }
        endFrame = first + Int64(frames.count)
        settleWindows()
        beginPendingDecode()
    }

    /// Takes in the settled windows once their decode has ended, and begins the next one when a live
    /// stream's audio has gone a second past a window after them: on a thread of its own, as a result's
    /// work (it is the result's first part), while nothing else decodes the utterance (a pause's decode under way
    /// or awaited keeps it from starting; a partial decode is stopped for it).
    private func settleWindows() {
        if let running = settling, running.isDone { takeSettled(running) }
        // Only for a live stream, as a pause's decode: audio that arrives faster than it was spoken (an
        // upload) is decoded when it ends, where the caller measures and bounds the work.
        guard streamIsLive, settling == nil, !settlingFailed, pendingPause == nil, speculation?.isCancelled ?? true,
            peak >= Self.silencePeak,
            samples.count - settled.samples >= Self.maxSpeculativeSamples + format.sampleRate
        else { return }
        retireSpeculation()
        retirePartialDecode()
        settling = .result(
            samples: samples, after: settled, settlingOnly: true, transcriber: transcriber, options: utteranceOptions,
            slots: slots)
    }

    /// Takes in the windows `running` settled, once it has ended (stopped at once when `cancelled` says
    /// so). A failure is the final decode's to report: it decodes those windows again.
    private func takeSettled(
        _ running: WhisperBackgroundDecode<WhisperWindowsSettled>, unless cancelled: () -> Bool = { false }
    ) {
        settling = nil
        guard let decoded = try? running.wait(unless: cancelled) else {
            settlingFailed = !running.isCancelled
            return
        }
        guard decoded.samples > settled.samples else { return }
        settlingDecodes += 1
        settled = decoded
    }

    /// Stops the settling decode under way, if any, and waits for it to let go of the transcriber.
    private func retireSettling() {
        guard let settling else { return }
        settling.cancel()
        _ = settling.stoppedEarly
        self.settling = nil
    }

    public func setRequestOptions(_ options: RecognitionRequestOptions) throws(RecognitionOptionRefusal) {
        do {
            if let language = options.language { try model.requireLanguage(language) }
        } catch {
            throw RecognitionOptionRefusal(.language, "\(error)")
        }
        do {
            if options.translate { try model.requireTask(.translate) }
        } catch {
            throw RecognitionOptionRefusal(.translate, "\(error)")
        }
        if let temperature = options.temperature, !(0...1).contains(temperature) {
            throw RecognitionOptionRefusal(.temperature, "temperature \(temperature): expected 0 to 1")
        }
        requestOptions = options
    }

    /// The options of this utterance: the recognizer's, with the request's language and prompt, and a
    /// temperature T meaning T, T + 0.2, … up to 1 (openai/whisper's fallback from T).
    private var utteranceOptions: WhisperOptions {
        var options = self.options
        // A looping window must not hold the listener, and other streams' decodes, for seconds.
        options.boundsLoops = true
        if let language = requestOptions.language { options.language = language }
        if let prompt = requestOptions.prompt, !prompt.isEmpty { options.initialPrompt = prompt }
        if requestOptions.translate { options.task = .translate }
        if let temperature = requestOptions.temperature, temperature > 0 {
            options.temperatures = stride(from: temperature, through: 1.000_001, by: 0.2).map { min($0, 1) }
        }
        return options
    }

    /// Begins the final decode of the utterance through ``pauseTrail`` after `speechEnd` on a thread of
    /// its own (``WhisperBackgroundDecode``), as soon as the audio reaches that far (now, or in a later
    /// ``accept(_:)``), to be the result if only silence follows: the endpointer's wait then costs the
    /// listener nothing. Not for silence, nor an utterance longer than one window; a second pause with
    /// no speech between them keeps the decode under way (or awaited).
    public func speechPaused(at speechEnd: MediaTime) {
        guard isOpen, peak >= Self.silencePeak else { return }
        if let speculation, !speculation.isCancelled { return }
        if pendingPause != nil { return }
        let trail = Int64((Self.pauseTrail * Double(format.sampleRate)).rounded())
        pendingPause = speechEnd.converted(to: format.sampleRate).frame + trail
        beginPendingDecode()
    }

    /// Begins the pause's decode once the audio reaches its end.
    private func beginPendingDecode() {
        // After the settled windows: a settling decode under way is waited out (the next audio, or the
        // end of the utterance, takes it in).
        guard let through = pendingPause, let startFrame, endFrame >= through, settling == nil else { return }
        pendingPause = nil
        let count = Int(max(0, min(through - startFrame, Int64(samples.count))))
        guard count - settled.samples <= Self.maxSpeculativeSamples else { return }
        retireSpeculation()
        // The transcriber is the result's: provisional text is not wanted while the speaker pauses.
        retirePartialDecode()
        earlyDecodes.begun += 1
        var options = utteranceOptions
        options.encoderWindow = options.liveEncoderWindow
        speculation = .result(
            samples: Array(samples[..<count]), after: settled, transcriber: transcriber, options: options, slots: slots)
    }

    public var beginsFinalDecodeOnPause: Bool { true }

    public func noteStreamPace(isLive: Bool) { streamIsLive = isLive }

    /// Speech again after ``speechPaused(at:)``: the early decode stops at its next check and is
    /// dropped (or is not begun).
    public func speechResumed() {
        pendingPause = nil
        speculation?.cancel()
    }

    /// Forgets a pause not yet decoded, and waits for a cancelled early decode to let go of the
    /// transcriber.
    private func retireSpeculation() {
        pendingPause = nil
        guard let speculation else { return }
        speculation.cancel()
        if speculation.stoppedEarly { earlyDecodes.stopped += 1 }
        self.speculation = nil
    }

    /// Waits for the partial decode under way to end and takes its text in (nothing when it was stopped,
    /// cancelled, or found no core to spare).
    private func takePartialDecode() throws {
        guard let running = partialDecode else { return }
        partialDecode = nil
        if let segments = try running.wait(), let timing = running.timing {
            notePartial(segments, decodedSamples: running.sampleCount, timing: timing)
        }
    }

    /// Lets go of the partial decode: its text is taken in if it has ended, else it is stopped at its
    /// next check and dropped; either way the transcriber is free when this returns.
    private func retirePartialDecode() {
        guard let partialDecode else { return }
        if !partialDecode.isDone { partialDecode.cancel() }
        // A failed partial decode leaves the agreed text as it was; the result's decode says what is wrong.
        try? takePartialDecode()
        self.partialDecode = nil
    }

    public func partialResult() throws -> RecognitionResult? {
        guard isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: no utterance is open; call startUtterance() first")
        }
        // A partial decode on its own thread that has ended is taken in; so is one under way once the
        // audio turns out faster than real time, waited for as the decodes that follow it will be.
        if let running = partialDecode, running.isDone || !streamIsLive { try takePartialDecode() }
        // While the speaker pauses (the decode begun there awaited or under way), the text agreed so far
        // stands: no words are coming, and the pause's decode needs the transcriber.
        if pendingPause != nil { return agreedResult() }
        if let speculation {
            if !speculation.isCancelled { return agreedResult() }
            retireSpeculation()
        }
        // One partial decode at a time, and none while windows are settled (the transcriber is theirs).
        if partialDecode != nil || settling != nil { return agreedResult() }
        let decodedBefore = lastPartial?.samples ?? 0
        let clock = ContinuousClock()
        // Until two decodes agree on a first word, decodes run as audio comes, so a partial result comes as
        // soon as it can (the first two often disagree: 1 s of a sentence is heard as another word); from
        // then on, sharing time bounds the work.
        let rested =
            partialPacing == .everySecondOfAudio || confirmed.isEmpty
            || lastPartialTiming.map { clock.now - $0.ended >= $0.took } ?? true
        guard samples.count - decodedBefore >= format.sampleRate, peak >= Self.silencePeak, rested else {
            return agreedResult()
        }
        var options = utteranceOptions
        // Provisional text: the partial window, whatever the final decodes use, and never the full
        // window after it (a loop or an improbable first second is followed by another decode soon).
        options.encoderWindow = options.partialEncoderWindow
        options.fullWindowFallback = false
        options.beamSize = 1
        options.temperatures = [0]
        options.wordTimestamps = false
        // Within one window, the decode continues the confirmed words (a longer utterance is decoded
        // window by window, and the confirmed words then stand as they are).
        if samples.count <= Self.maxSpeculativeSamples, confirmed.count <= model.dimensions.textContext / 4 {
            options.prefix = confirmed
        }
        let started = clock.now
        switch partialPacing {
        case .sharingTime where streamIsLive:
            // On a thread of its own, and only on a core no result needs: skipped while results wait
            // for one, and stopped when one comes to wait (the text agreed so far stands; a later call
            // tries again). The stream goes on being read meanwhile, so a pause is seen when it comes.
            nonisolated(unsafe) let transcriber = transcriber
            let (slots, options) = (slots, options)
            partialDecode = WhisperBackgroundDecode(samples: samples, name: "earshot-whisper-partial") {
                samples, isCancelled in
                try transcriber.transcribeProvisionally(samples, options: options, slots: slots, stop: isCancelled)
            }
        case .sharingTime:
            // Audio faster than real time (a file uploaded at once): the decode holds the reading, or
            // the audio would end before any did; still only on a core no result needs.
            let decoded: [WhisperSegment]?
            do {
                decoded = try transcriber.transcribeProvisionally(
                    samples, options: options, slots: slots, stop: { Task.isCancelled })
            } catch let error as EarshotError where error.code == .canceled && !Task.isCancelled {
                decoded = nil
            }
            if let decoded {
                notePartial(decoded, decodedSamples: samples.count, timing: (clock.now, clock.now - started))
            }
        case .everySecondOfAudio:
            // The same partials whatever the load: each waits its turn for a core, as a result does.
            let segments = try transcriber.transcribeAsResult(
                samples, options: options, slots: slots, isCancelled: { Task.isCancelled })
            notePartial(segments, decodedSamples: samples.count, timing: (clock.now, clock.now - started))
        }
        return agreedResult()
    }

    /// Takes in a partial decode of the first `decodedSamples`: the words it agrees on with the last one
    /// are confirmed.
    private func notePartial(
        _ segments: [WhisperSegment], decodedSamples: Int, timing: (ended: ContinuousClock.Instant, took: Duration)
    ) {
        lastPartialTiming = timing
        partialDecodes += 1
        let tokens = segments.flatMap(\.tokens).filter { $0 < model.tokenizer.endOfText }
        if let previous = lastPartial?.tokens {
            confirmed += Self.agreedWords(previous, tokens, after: confirmed, tokenizer: model.tokenizer)
        }
        lastPartial = (decodedSamples, tokens)
    }

    /// Waits for the partial decode under way, if any, to end (for tests: the next ``partialResult()``
    /// then takes its text in, as a synchronous decode would have).
    func awaitPartialDecode() {
        guard let partialDecode else { return }
        _ = try? partialDecode.wait()
    }

    /// The whole words that follow `confirmed` in both `previous` and `latest` (two consecutive partial
    /// decodes' text tokens), the same in both: LocalAgreement-2. A word is whole when, in each decode,
    /// the token after it begins a new word (a leading space) or the decode ends there, so the confirmed
    /// text never ends partway through a word. Nothing, when either decode does not begin with `confirmed`.
    static func agreedWords(_ previous: [Int], _ latest: [Int], after confirmed: [Int], tokenizer: WhisperTokenizer)
        -> [Int]
    {
        guard previous.starts(with: confirmed), latest.starts(with: confirmed) else { return [] }
        let (old, new) = (previous.dropFirst(confirmed.count), latest.dropFirst(confirmed.count))
        var agreed = zip(old, new).prefix { $0 == $1 }.count
        func beginsWord(_ token: Int) -> Bool { tokenizer.decode([token]).hasPrefix(" ") }
        // Whole words: in each decode, the agreement ends it or a new word follows.
        let next = [new.dropFirst(agreed).first, old.dropFirst(agreed).first].compactMap { $0 }
        if !next.allSatisfy(beginsWord) {
            // Partway through a word: back to that word's start.
            while agreed > 0, !beginsWord(new[new.startIndex + agreed - 1]) { agreed -= 1 }
            agreed = max(agreed - 1, 0)
        }
        return Array(new.prefix(agreed))
    }

    /// The partial result of the confirmed tokens.
    private func agreedResult() -> RecognitionResult? {
        let text = model.tokenizer.decode(confirmed).trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, let startFrame else { return nil }
        // The text is of the audio the last partial decode heard, not of what has come since.
        let heard = lastPartial.map { startFrame + Int64($0.samples) } ?? endFrame
        return RecognitionResult(
            hypotheses: [Hypothesis(text: text, confidence: nil, words: [])], start: mediaTime(startFrame),
            end: mediaTime(heard), isPartial: true)
    }

    public func endUtterance() throws -> RecognitionResult {
        guard isOpen else {
            throw EarshotError(.invalidParameter, "Whisper: no utterance is open; call startUtterance() first")
        }
        isOpen = false
        let options = utteranceOptions
        requestOptions = .none
        let start = startFrame ?? endFrame
        var result = RecognitionResult(
            hypotheses: [], start: mediaTime(start), end: mediaTime(endFrame), isPartial: false)
        // An early decode still valid (no speech since the pause) is the answer: the audio after it is
        // the silence the endpointer waited out.
        retirePartialDecode()
        let early = speculation.flatMap { $0.isCancelled ? nil : (try? $0.wait(unless: { Task.isCancelled })) ?? nil }
        retireSpeculation()
        // Windows being settled are the result's first part: waited for (or stopped, for a caller gone).
        if let running = settling { takeSettled(running, unless: { Task.isCancelled }) }
        // A caller cancelled while it waited (a client that left) gets its decode stopped, not finished.
        if Task.isCancelled { throw CancellationError() }
        guard peak >= Self.silencePeak else { return result }
        let segments: [WhisperSegment]
        do {
            if let early {
                earlyDecodes.used += 1
                segments = early.segments
            } else {
                segments = try transcriber.transcribeAsResult(
                    samples, after: settled, settlingOnly: false, options: options, slots: slots,
                    isCancelled: { Task.isCancelled }
                ).segments
            }
        } catch let error as EarshotError where error.code == .canceled {
            throw CancellationError()
        } catch let error as EarshotError {
            throw error
        } catch {
            throw EarshotError(.recognizerFailed, "Whisper failed to decode the utterance: \(error)")
        }
        // No decode holds the transcriber now (partial decodes never fall back to the full window).
        earlyDecodes.redoneInFull += transcriber.fallbacksToFullWindow - fallbacksCounted
        fallbacksCounted = transcriber.fallbacksToFullWindow
        result.language = transcriber.language?.code
        result.languageProbability = transcriber.language?.probability
        var text = segments.map(\.text).joined().trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return result }
        let rate = Double(format.sampleRate)
        // Placed on the stream's clock at the sample nearest each time the window's decode gives.
        func streamSeconds(_ seconds: Double) -> Double { mediaTime(start + Int64((seconds * rate).rounded())).seconds }
        var words: [TimedWord] = []
        var pieces = 0
        var meanConfidence = 0.0
        for (index, word) in segments.flatMap(\.words).enumerated() {
            let spelled = word.word.trimmingCharacters(in: .whitespaces)
            guard !spelled.isEmpty else { continue }
            let end = streamSeconds(word.end)
            if index > 0, !word.word.hasPrefix(" "), !words.isEmpty {
                // A piece of the word before (no space between them in the text): the word's confidence
                // is its pieces' mean.
                pieces += 1
                meanConfidence += ((word.confidence ?? 0) - meanConfidence) / Double(pieces)
                let last = words.count - 1
                words[last].word += spelled
                words[last].end = max(words[last].end, end)
                words[last].confidence = meanConfidence
                continue
            }
            pieces = 1
            meanConfidence = word.confidence ?? 0
            words.append(
                TimedWord(word: spelled, start: streamSeconds(word.start), end: end, confidence: meanConfidence))
        }
        let kept = Self.droppingRepeatedTail(words)
        if kept.count < words.count {
            words = kept
            text = kept.map(\.word).joined(separator: " ")
        }
        guard !text.isEmpty else { return result }
        let confidence =
            words.isEmpty
            ? segments.first.map { Foundation.exp($0.averageLogProbability) }
            : words.map { $0.confidence ?? 0 }.reduce(0, +) / Double(words.count)
        result.hypotheses = [Hypothesis(text: text, confidence: confidence, words: words)]
        return result
    }

    /// `words` without a run at the end, of two words or more, whose words all have no length and which
    /// says again words said before it ("Play the Winawer variation. The Winawer variation.", the repeat at 1.64–1.64 s):
    /// Whisper looping after the speech, which word alignment places where no audio is left.
    static func droppingRepeatedTail(_ words: [TimedWord]) -> [TimedWord] {
        let zeroLength = words.reversed().prefix { $0.start >= $0.end }.count
        guard zeroLength > 0, zeroLength < words.count else { return words }
        func normalized(_ word: TimedWord) -> String {
            word.word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" }
        }
        let spoken = words.dropLast(zeroLength).map(normalized)
        // The longest repeating end of the zero-length run: all of it, or what follows its first words.
        // Two words at least: a lone word of no length at the end is often a real short one ("a").
        for start in (words.count - zeroLength)..<(words.count - 1) {
            let tail = words[start...].map(normalized)
            guard tail.count <= spoken.count else { continue }
            let repeats = (0...(spoken.count - tail.count)).contains { Array(spoken[$0..<($0 + tail.count)]) == tail }
            if repeats { return Array(words[..<start]) }
        }
        return words
    }

    /// Drops the open utterance: nothing is decoded.
    public func abandonUtterance() {
        retireSpeculation()
        retirePartialDecode()
        retireSettling()
        isOpen = false
        requestOptions = .none
        samples.removeAll(keepingCapacity: true)
    }

    private func mediaTime(_ frame: Int64) -> MediaTime { MediaTime(frame: frame, sampleRate: format.sampleRate) }
}

extension WhisperTranscriber {
    /// `samples` transcribed as provisional text: only on one of `slots` no result needs (nil at once
    /// when none is), stopped (`.canceled`) when `stop` says so or a result comes to wait for the slot.
    func transcribeProvisionally(
        _ samples: [Float], options: WhisperOptions, slots: ComputeSlots, stop: @escaping () -> Bool
    ) throws -> [WhisperSegment]? {
        try slots.runProvisional { resultWaiting in
            try samples.withUnsafeBufferPointer {
                try transcribe($0, options: options, isCancelled: { stop() || resultWaiting() })
            }
        }
    }

    /// `samples` transcribed as a result's decode: once one of `slots` is free, in order of arrival.
    /// Throws `.canceled` when `isCancelled` says so, while it waits or while it decodes.
    func transcribeAsResult(
        _ samples: [Float], options: WhisperOptions, slots: ComputeSlots, isCancelled: @escaping () -> Bool
    ) throws -> [WhisperSegment] {
        try transcribeAsResult(
            samples, after: nil, settlingOnly: false, options: options, slots: slots, isCancelled: isCancelled
        ).segments
    }

    /// The same, after the windows `settled` holds (``transcribe(_:options:isCancelled:after:settlingOnly:)``).
    func transcribeAsResult(
        _ samples: [Float], after settled: WhisperWindowsSettled?, settlingOnly: Bool, options: WhisperOptions,
        slots: ComputeSlots, isCancelled: @escaping () -> Bool
    ) throws -> WhisperWindowsSettled {
        let decoded = try slots.runResult(unless: isCancelled) {
            try samples.withUnsafeBufferPointer {
                try transcribe(
                    $0, options: options, isCancelled: isCancelled, after: settled, settlingOnly: settlingOnly)
            }
        }
        guard let decoded else { throw EarshotError(.canceled, "whisper: cancelled while waiting for a core") }
        return decoded
    }
}
