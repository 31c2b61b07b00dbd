import EarshotCodecs
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer

/// Errors a ``RecognitionSession`` throws: the body's audio is malformed, or longer than allowed.
enum RecognitionSessionFailure: Error {
    /// The audio is not `format` (its display name): `message` says where it went wrong.
    case malformed(format: String, message: String)
    case tooLong(limit: Double)
    /// A container body (decoded once it has arrived) holds more than `limit` bytes, more than
    /// `seconds` of audio at any audio bit rate.
    case tooLarge(limit: Int, seconds: Double)
    /// No speech was found in the first `limit` seconds of audio (``InitialSilenceLimit``).
    case noSpeech(limit: Double)
}

/// One request's audio path, fed as the body arrives: one chain of decoder → duration limit →
/// resampler (made when the decoded format is known; it also down-mixes) → initial-silence limit →
/// recognizer.
///
/// Each body chunk is decoded, brought to the recognizer's format and recognized before the next
/// chunk is read, so when the last chunk arrives only its own audio and the end of the utterance
/// remain to be computed. A container, decoded only once the body has ended, goes through the chain
/// the same way, one decoded block at a time (``MediaSpoolDecoder/decodeNextBlock(into:)``), so a
/// request holds one block of it rather than the whole file at its own rate and channel count. Any
/// ``Recognizer`` (the service lends PocketSphinx ones). Not thread-safe (it drives C state): one per
/// request.
final class RecognitionSession<R: Recognizer> {
    /// Bytes of body received.
    private(set) var audioBytes = 0
    /// Seconds of audio decoded so far (at the stream's own rate). A container, decoded only once the
    /// body has arrived, counts as ``containerBytesPerSecond`` bytes a second until then, so the
    /// upload pace rules judge it too.
    var audioTime: Double {
        let decoded = chain.first.second.seconds
        guard spoolLimit != nil, decoded == 0 else { return decoded }
        return Double(audioBytes) / Double(Self.containerBytesPerSecond)
    }

    /// A container's bytes per second of audio, as the pace rules count them before it is decoded: 32
    /// kbit/s, the low end of speech in AAC, Opus or MP3 (a higher rate only makes the rules laxer).
    static var containerBytesPerSecond: Int { 4_000 }
    /// The highest bit rate a container body may average over the longest audio allowed: 512 kbit/s,
    /// above any audio-only AAC, Opus or MP3 (a video track is refused with 413).
    static var containerMaxBytesPerSecond: Int { 64_000 }
    /// The bytes a container body may hold (it is spooled to disk until it ends); nil for wire formats.
    private let spoolLimit: Int?
    private let maxAudioDuration: Double

    private typealias Chain = StageChain<
        StageChain<Decoding, DurationLimit>,
        StageChain<DeferredResampler, StageChain<InitialSilenceLimit, RecognizerStage<R>>>
    >
    private var chain: Chain
    private var results = StageOutput<RecognitionResult>()
    /// A container's decoded block, then that block past the duration limit.
    private var block = StageOutput<AudioBuffer>()
    private var counted = StageOutput<AudioBuffer>()
    /// Whether the body's audio is arriving live, so an early decode at a pause is worth beginning.
    private var pace = LivePace()

    init(contentType: AudioContentType, recognizer: R, limits: AudioLimits) throws {
        let maxAudioDuration = limits.maxAudioDuration
        // Each request is decoded as by a freshly loaded recognizer: one client's channel must not
        // colour another's result.
        var recognizer = recognizer
        try recognizer.resetAdaptation()
        var recognition = RecognizerStage(recognizer: recognizer)
        // Open now, so a partial result may be asked before the first audio.
        try recognition.open()
        let decoding = Decoding(
            decoder: try contentType.makeDecoder(maxAudioDuration: maxAudioDuration),
            formatName: contentType.displayName)
        self.maxAudioDuration = maxAudioDuration
        spoolLimit =
            contentType.container == nil
            ? nil : Int(min(maxAudioDuration * Double(Self.containerMaxBytesPerSecond), Double(Int32.max))) + (1 << 20)
        // A recognizer that decodes when the utterance ends begins that decode at the speaker's pause,
        // so the words are ready when the client's endpointer ends the upload. Not for a container,
        // decoded only once its body has ended: nothing is left to wait for then.
        let silence = try InitialSilenceLimit(
            limit: limits.maxInitialSilence, detector: limits.detector, models: limits.detectorModels,
            sampleRate: recognizer.format.sampleRate,
            watchPauses: limits.beginFinalDecodeOnPause && recognizer.beginsFinalDecodeOnPause
                && contentType.container == nil)
        chain = decoding.then(DurationLimit(limit: maxAudioDuration)).then(
            DeferredResampler(configuration: .init(sampleRate: recognizer.format.sampleRate)).then(
                silence.then(recognition)))
    }

    private var recognizer: R {
        get { chain.second.second.second.recognizer }
        _modify { yield &chain.second.second.second.recognizer }
    }

    /// Decodes and recognizes one chunk of the body.
    func consume(_ bytes: [UInt8]) throws {
        audioBytes += bytes.count
        if let spoolLimit, audioBytes > spoolLimit {
            throw RecognitionSessionFailure.tooLarge(limit: spoolLimit, seconds: maxAudioDuration)
        }
        results.removeAll()
        try chain.process(bytes, into: &results)
        pace.arrived(through: audioTime)
        recognizer.noteStreamPace(isLive: pace.isLive)
        for change in chain.second.second.first.takePauseChanges() {
            recognizer.notePauseChange(change, live: pace.isLive)
        }
    }

    /// The best hypothesis so far, or nil.
    func partialResult() throws -> RecognitionResult? {
        try recognizer.partialResult()
    }

    /// Gives the recognizer a request's options for this utterance (before ``finish()``).
    func setRequestOptions(_ options: RecognitionRequestOptions) throws(RecognitionOptionRefusal) {
        try recognizer.setRequestOptions(options)
    }

    /// Flushes the decoder and resampler and ends the utterance.
    func finish() throws -> RecognitionResult {
        results.removeAll()
        do {
            try recognizeSpooledBlocks()
            try chain.finish(into: &results)
        } catch {
            abandon()
            throw error
        }
        guard chain.first.second.frames > 0, let result = results.items.last else {
            throw RecognitionSessionFailure.malformed(
                format: chain.first.first.formatName, message: "the body holds no audio samples")
        }
        return result
    }

    /// A container's audio, decoded now the body has ended: each block goes through the duration limit,
    /// the resampler (down-mixing it), the silence limit and the recognizer before the next is decoded.
    private func recognizeSpooledBlocks() throws {
        while try chain.first.first.decodeNextBlock(into: &block) {
            for buffer in block.items {
                counted.removeAll()
                try chain.first.second.process(buffer, into: &counted)
                for buffer in counted.items { try chain.second.process(buffer, into: &results) }
            }
            block.removeAll()
        }
        counted.removeAll()
    }

    /// Abandons the utterance (after an error), leaving the recognizer ready for the next request.
    func abandon() {
        recognizer.abandonUtterance()
    }

    /// The body's decoder as a stage; its errors are the body's, malformed.
    private struct Decoding: AudioStage {
        var decoder: any AudioDecoder
        let formatName: String
        /// The decoder, when it spools a container to decode once the body has ended.
        private let spooled: MediaSpoolDecoder?

        init(decoder: any AudioDecoder, formatName: String) {
            self.decoder = decoder
            self.formatName = formatName
            spooled = decoder as? MediaSpoolDecoder
        }

        /// Once the body has ended, a spooled container's next block: false when there is no more,
        /// or the decoder decodes as the body arrives (``finish(into:)`` flushes it).
        func decodeNextBlock(into output: inout StageOutput<AudioBuffer>) throws -> Bool {
            guard let spooled else { return false }
            do {
                return try spooled.decodeNextBlock(into: &output)
            } catch let error as EarshotError {
                throw RecognitionSessionFailure.malformed(format: formatName, message: error.message)
            }
        }

        mutating func process(_ input: [UInt8], into output: inout StageOutput<AudioBuffer>) throws {
            do {
                try decoder.process(input, into: &output)
            } catch let error as EarshotError {
                throw RecognitionSessionFailure.malformed(format: formatName, message: error.message)
            }
        }

        mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {
            do {
                try decoder.finish(into: &output)
            } catch let error as EarshotError {
                throw RecognitionSessionFailure.malformed(format: formatName, message: error.message)
            }
        }
    }

    /// Counts the decoded audio (skipping empty buffers), refusing more than `limit` seconds.
    private struct DurationLimit: AudioStage {
        let limit: Double
        private(set) var frames: Int64 = 0
        private(set) var seconds = 0.0

        init(limit: Double) { self.limit = limit }

        mutating func process(_ input: AudioBuffer, into output: inout StageOutput<AudioBuffer>) throws {
            guard !input.isEmpty else { return }
            frames += Int64(input.frameCount)
            seconds = Double(frames) / Double(input.format.sampleRate)
            if seconds > limit { throw RecognitionSessionFailure.tooLong(limit: limit) }
            output.emit(input)
        }

        mutating func finish(into output: inout StageOutput<AudioBuffer>) throws {}
    }
}
