import EarshotCore
import EarshotDSP
import EarshotRecognizer
import EarshotVAD

/// One Realtime session's audio path and turns, fed each `append`'s bytes: decoder → resampler to
/// the recognizer's rate → (with `server_vad`) the service's detector and smoother → the SDK's
/// endpointer, and the recognizer, one utterance per turn.
///
/// `server_vad` maps onto the pipeline's own stages: `threshold` is the smoother's onset threshold
/// (offset 0.15 below, as everywhere) and the endpointer's ending-silence threshold, so silence is
/// timed from where the detector stopped hearing speech; `silence_duration_ms` is the endpointer's
/// `endingSilence`; `prefix_padding_ms` is the audio before the detected start that the turn's
/// utterance begins with (kept in a short pre-roll while no turn is open). Between turns nothing is
/// decoded. While the endpointer waits out the silence, the recognizer is told the speaker paused
/// (``PauseWatch``, as on the upload routes), so Whisper's final
/// decode runs during the wait and `completed` follows `speech_stopped` with nothing left to decode.
/// Without turn detection, the client's `commit` ends each turn; the detector still runs, only to
/// tell the recognizer of the speaker's pauses, so a client that commits at its own endpoint (as
/// `earshot listen` does) finds the final decode under way or done.
///
/// Times are media time at the recognizer's rate, counted over the whole session, so `audio_start_ms`
/// and `audio_end_ms` are milliseconds of audio since the session began. Not thread-safe, and it
/// drives the recognizer's C state: one per session, on the executor for blocking work.
final class RealtimeTranscriber {
    /// What a step produced, in order; the route turns each into a server event.
    enum Output: Equatable {
        case speechStarted(itemID: String, audioStartMs: Int)
        case speechStopped(itemID: String, audioEndMs: Int)
        case committed(itemID: String, previousItemID: String?)
        case cleared
        case delta(itemID: String, text: String)
        case completed(itemID: String, transcript: String, audioSeconds: Double)
        case failed(itemID: String, message: String)

        /// Whether this output ends a turn (its transcript or its failure).
        var endsTurn: Bool {
            switch self {
            case .completed, .failed: true
            default: false
            }
        }
    }

    private(set) var settings: RealtimeSessionSettings
    private var recognizer: any Recognizer
    private let detectorKind: DetectorKind
    private let detectorModels: DetectorModels
    /// The longest turn, in seconds (the service's `--max-audio-duration`): a turn reaching it is
    /// committed there.
    private let maxTurn: Double
    private let rate: Int

    private var decoder: RealtimeAudioDecoder
    private var resampler: Resampler
    private var resampled = StageOutput<AudioBuffer>()
    private var inputFrames: Int64 = 0
    /// The session's clock at the recognizer's rate: frames resampled so far.
    private var frames: Int64 = 0
    /// Whether the audio is arriving live, so an early decode at a pause is worth beginning.
    private var pace = LivePace()

    /// With `server_vad`, the detector whose decisions drive the endpointer; without, one that only
    /// tells the recognizer of pauses (nil when the recognizer has no use for them).
    private var detector: SpeechDetectorStage?
    private var decisions = StageOutput<VADDecision>()
    private var endpointer: Endpointer?
    private var endpointerEvents: [StageEvent] = []
    /// Recent audio while no turn is open, for the prefix padding and the smoother's look-ahead.
    private var preRoll: [Float] = []
    private var preRollStart: Int64 = 0

    private struct Turn {
        let itemID: String
        let start: Int64
        var frames = 0
        var sent = ""
        var pauses = PauseWatch()
    }
    private var turn: Turn?
    private var itemCount = 0
    /// Item ids are `item_<session>_<n>`.
    private let itemPrefix: String
    private var lastItemID: String?

    init(
        recognizer: any Recognizer, settings: RealtimeSessionSettings, detector: DetectorKind,
        models: DetectorModels, maxTurn: Double, itemPrefix: String
    ) throws {
        self.itemPrefix = itemPrefix
        var recognizer = recognizer
        try recognizer.resetAdaptation()
        self.recognizer = recognizer
        self.settings = settings
        detectorKind = detector
        detectorModels = models
        self.maxTurn = maxTurn
        rate = recognizer.format.sampleRate
        decoder = RealtimeAudioDecoder(format: settings.format)
        resampler = try Self.resampler(for: settings.format, rate: rate)
        try configureTurnDetection()
    }

    /// Seconds of audio received.
    var audioSeconds: Double { Double(frames) / Double(rate) }

    /// Takes new settings: a new format applies from the next `append`; new turn detection from now on
    /// (a turn open under the old one goes on). The recognizer stays the caller's to swap.
    func update(_ new: RealtimeSessionSettings) throws {
        let old = settings
        settings = new
        if new.format != old.format {
            decoder = RealtimeAudioDecoder(format: new.format)
            resampler = try Self.resampler(for: new.format, rate: rate)
            inputFrames = 0
        }
        if new.turnDetection != old.turnDetection { try configureTurnDetection() }
    }

    /// Gives the recognizer another recognizer (the client named another model) between turns.
    func replaceRecognizer(_ new: any Recognizer) throws {
        precondition(turn == nil, "a recognizer is replaced between turns only")
        var new = new
        try new.resetAdaptation()
        recognizer = new
        // Without turn detection, whether a detector runs depends on the recognizer.
        if settings.turnDetection == nil { try configureTurnDetection() }
    }

    /// Whether a turn is open (audio is going to the recognizer).
    var isInTurn: Bool { turn != nil }

    /// The recognizer's early-decode tally, for the service's metrics.
    var earlyDecodes: EarlyDecodeTally { recognizer.earlyDecodes }

    private static func resampler(for format: RealtimeSessionSettings.Format, rate: Int) throws -> Resampler {
        try Resampler(
            inputFormat: AudioFormat(sampleRate: format.rate, channelCount: 1, origin: "input audio format"),
            configuration: .init(sampleRate: rate))
    }

    private func configureTurnDetection() throws {
        guard let vad = settings.turnDetection else {
            endpointer = nil
            detector =
                recognizer.beginsFinalDecodeOnPause
                ? try SpeechDetectorStage(
                    detector: detectorKind, models: detectorModels, smoothing: SmoothingConfiguration(),
                    sampleRate: rate)
                : nil
            return
        }
        let onset = Float(vad.threshold)
        detector = try SpeechDetectorStage(
            detector: detectorKind, models: detectorModels,
            smoothing: SmoothingConfiguration(onsetThreshold: onset, offsetThreshold: max(0, onset - 0.15)),
            sampleRate: rate)
        endpointer = try makeEndpointer(at: MediaTime(frame: frames, sampleRate: rate))
    }

    private func makeEndpointer(at start: MediaTime) throws -> Endpointer {
        let vad = settings.turnDetection ?? .init()
        return Endpointer(
            configuration: try EndpointerConfiguration(
                maxInitialSilence: .infinity, endingSilence: Double(vad.silenceDurationMs) / 1_000,
                minRecordingTime: 0, maxRecordingTime: maxTurn, cancelWhenSilent: false,
                endingSilenceThreshold: Float(vad.threshold)),
            start: start)
    }

    /// One `append`'s bytes, `received` when the message was read; with `partial`, the partial text is
    /// brought up to date too (a reader that has fallen behind the client skips it, so the audio and the
    /// final come first). Each output goes to `emit` as it happens: a turn's `speech_stopped` and
    /// `committed` reach the client when the endpoint fires, before its final decode is awaited.
    func append(
        _ bytes: [UInt8], partial wantsPartial: Bool = true, received: ContinuousClock.Instant = .now,
        emit: (Output) -> Void
    ) throws {
        let samples = decoder.decode(bytes)
        guard !samples.isEmpty else { return }
        let input = AudioBuffer(
            format: resampler.inputFormat, samples: samples, startFrame: inputFrames)
        inputFrames += Int64(samples.count)
        resampled.removeAll()
        try resampler.process(input, into: &resampled)
        let arrived = frames + resampled.items.reduce(0) { $0 + Int64($1.frameCount) }
        pace.arrived(through: Double(arrived) / Double(rate), at: received)
        for buffer in resampled.items where !buffer.isEmpty {
            // Stamped with the session's clock, which a change of format does not restart.
            let stamped = AudioBuffer(format: buffer.format, samples: buffer.samples, startFrame: frames)
            frames += Int64(stamped.frameCount)
            if endpointer != nil {
                try detectTurns(in: stamped, emit: emit)
            } else {
                if turn == nil { try openTurn(at: stamped.startFrame) }
                try accept(stamped)
                try notePauses(in: stamped)
                if let turn, Double(turn.frames) / Double(rate) >= maxTurn { try closeTurn(emit: emit) }
            }
        }
        if turn != nil, wantsPartial { try partial(emit: emit) }
    }

    private func detectTurns(in buffer: AudioBuffer, emit: (Output) -> Void) throws {
        if turn == nil {
            preRoll.append(contentsOf: buffer.samples)
            let keep = rate * 3
            if preRoll.count > keep {
                let drop = preRoll.count - keep
                preRoll.removeFirst(drop)
                preRollStart += Int64(drop)
            }
        } else {
            try accept(buffer)
        }
        decisions.removeAll()
        try detector!.process(buffer, into: &decisions)
        for decision in decisions.items {
            endpointerEvents.removeAll(keepingCapacity: true)
            _ = endpointer?.process(decision, into: &endpointerEvents)
            for event in endpointerEvents {
                switch event.kind {
                case .speechStart where turn == nil:
                    let padding = Int64((settings.turnDetection?.prefixPaddingMs ?? 0) * rate / 1_000)
                    let start = max(preRollStart, event.time.frame - padding)
                    try openTurn(at: start)
                    let offset = Int(start - preRollStart)
                    try accept(
                        AudioBuffer(format: buffer.format, samples: Array(preRoll[offset...]), startFrame: start))
                    preRoll.removeAll(keepingCapacity: true)
                    preRollStart = frames
                    emit(.speechStarted(itemID: turn!.itemID, audioStartMs: milliseconds(start)))
                case .endpoint where turn != nil:
                    emit(.speechStopped(itemID: turn!.itemID, audioEndMs: milliseconds(event.time.frame)))
                    try closeTurn(emit: emit)
                    endpointer = try makeEndpointer(at: event.time)
                default: break
                }
            }
            if turn != nil { notePause(decision) }
        }
        if let ended = endpointer, !ended.isListening {
            endpointer = try makeEndpointer(at: MediaTime(frame: frames, sampleRate: rate))
        }
    }

    /// Without turn detection: the detector's decisions on `buffer` only tell the recognizer of pauses.
    private func notePauses(in buffer: AudioBuffer) throws {
        guard detector != nil else { return }
        decisions.removeAll()
        try detector!.process(buffer, into: &decisions)
        for decision in decisions.items where turn != nil { notePause(decision) }
    }

    /// Tells the recognizer of each pause and each return of speech inside the turn.
    private func notePause(_ decision: VADDecision) {
        recognizer.notePauseChange(turn!.pauses.note(decision), live: pace.isLive)
    }

    /// The client's `commit`: ends the open turn. Throws a refusal when there is no audio to commit.
    func commit(emit: (Output) -> Void) throws {
        guard let turn, turn.frames > 0 else {
            throw RealtimeRefusal(
                code: "input_audio_buffer_commit_empty",
                message: "the input audio buffer is empty; append audio before committing it")
        }
        try closeTurn(emit: emit)
        if settings.turnDetection != nil { try configureTurnDetection() }
    }

    /// The client's `clear`: the open turn's audio is dropped, undecoded.
    func clear() throws -> [Output] {
        if turn != nil {
            recognizer.abandonUtterance()
            turn = nil
        }
        preRoll.removeAll(keepingCapacity: true)
        preRollStart = frames
        if settings.turnDetection != nil { try configureTurnDetection() }
        return [.cleared]
    }

    /// Ends the session: an open turn is abandoned, so the recognizer goes back to its pool ready.
    func abandon() {
        if turn != nil { recognizer.abandonUtterance() }
        turn = nil
    }

    private func openTurn(at start: Int64) throws {
        itemCount += 1
        do {
            try recognizer.setRequestOptions(
                RecognitionRequestOptions(language: settings.language, prompt: settings.prompt))
        } catch {
            throw RealtimeRefusal.invalidValue(
                error.option == .language
                    ? "session.audio.input.transcription.language" : "session.audio.input.transcription",
                error.message)
        }
        try recognizer.startUtterance()
        turn = Turn(itemID: "item_\(itemPrefix)_\(itemCount)", start: start)
    }

    private func accept(_ buffer: AudioBuffer) throws {
        guard !buffer.isEmpty else { return }
        try recognizer.accept(buffer)
        turn!.frames += buffer.frameCount
    }

    private func partial(emit: (Output) -> Void) throws {
        guard let text = try recognizer.partialResult()?.text.trimmingSpaces, !text.isEmpty else { return }
        // Deltas only add: text that revises what was sent waits for the final transcript.
        guard text.hasPrefix(turn!.sent), text.count > turn!.sent.count else { return }
        emit(.delta(itemID: turn!.itemID, text: String(text.dropFirst(turn!.sent.count))))
        turn!.sent = text
    }

    /// Ends the open turn: `committed` is emitted at once, the transcript (or failure) once decoded.
    private func closeTurn(emit: (Output) -> Void) throws {
        guard let closing = turn else { return }
        turn = nil
        preRoll.removeAll(keepingCapacity: true)
        preRollStart = frames
        emit(.committed(itemID: closing.itemID, previousItemID: lastItemID))
        lastItemID = closing.itemID
        do {
            let result = try recognizer.endUtterance()
            emit(
                .completed(
                    itemID: closing.itemID, transcript: result.text.trimmingSpaces,
                    audioSeconds: Double(closing.frames) / Double(rate)))
        } catch {
            emit(.failed(itemID: closing.itemID, message: "the recognizer failed: \(error)"))
        }
    }

    private func milliseconds(_ frame: Int64) -> Int { Int(frame * 1_000 / Int64(rate)) }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text.removeFirst() }
        while text.last?.isWhitespace == true { text.removeLast() }
        return String(text)
    }
}
