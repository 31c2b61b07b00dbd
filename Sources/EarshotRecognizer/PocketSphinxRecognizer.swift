import CPocketSphinx
public import EarshotCore

/// The embedded recognizer: CMU PocketSphinx (5prealpha) with an n-gram language model.
///
/// Accepts mono audio at the model's rate (16 kHz for the Debian en-us model, see ``format``) and
/// decodes as it arrives, so `partialResult()` is cheap at any point. Samples are converted to 16-bit
/// PCM and handed to PocketSphinx in pieces of exactly 200 ms, whatever the size of the buffers fed:
/// the decoder's output depends on how its input is split (its first call decides some of its
/// state), and a fixed split makes a file read in 4096-frame blocks and a live stream in 20 ms
/// packets give identical results. Pieces shorter than ~115 ms would also make the first utterance
/// after loading score differently from later ones. Partial results therefore lag the audio by up
/// to 200 ms. Word times come from the decoder's 10 ms frames, placed on the media time of the
/// utterance's first buffer.
///
/// The cepstral mean (the channel's average spectrum) learned in one utterance seeds the next, as in
/// a live PocketSphinx session; on the LibriVox clips this lowers the word error rate from 0.37 to
/// 0.31. Call ``resetAdaptation()`` between unrelated streams so that one cannot colour the other.
///
/// PocketSphinx's own log is switched off for the whole process when the first recognizer is
/// created, so nothing reaches stdout or stderr. Not thread-safe (the decoder is not): one per task.
/// Loading the en-us model takes about half a second.
public final class PocketSphinxRecognizer: Recognizer {
    public let configuration: PocketSphinxConfiguration
    public let format: AudioFormat

    /// Decoder frames per call to `ps_process_raw` (200 ms): long enough that the first call leaves
    /// the decoder in the same state as every later one, short enough for lively partial results.
    static let framesPerCall = 20

    let decoder: OpaquePointer
    private let initialMean: CepstralMeanSnapshot?
    /// Samples per decoder frame: 160 at 16 kHz and 100 frames per second.
    let samplesPerFrame: Int
    /// Int16 staging for one piece of ``framesPerCall`` frames; `pending` samples of it are filled.
    private let scratch: UnsafeMutableBufferPointer<Int16>
    private var pending = 0
    var utterance: Utterance?
    /// The n-gram search PocketSphinx made at load, to return to after a grammar.
    let languageModelSearch: String
    /// The grammar in use and how, set by `useGrammar(_:as:)`.
    var grammar: ActiveGrammar?
    /// Whether words were added to the dictionary (and language model) since loading.
    public internal(set) var hasAddedWords = false
    /// Under a hint grammar, how unlike the language model's reading the grammar's was in the last
    /// utterance (phone edits per phone; see ``hintTolerance``).
    public internal(set) var lastHintDistance: Double?
    /// Where the next utterance starts if no audio is fed to it: the end of the previous one.
    private var streamFrame: Int64 = 0

    struct Utterance {
        /// Media time of the first frame, fixed by the first non-empty buffer.
        var startFrame: Int64?
        /// Media time just after the last frame accepted.
        var endFrame: Int64
    }
    /// The open utterance's samples, kept only under a grammar, which decodes them a second time.
    var retained: [Int16]?

    /// Loads the model named by `configuration` after checking that its files exist.
    ///
    /// Throws `.modelUnavailable` naming the missing file, or when PocketSphinx rejects the model.
    public init(configuration: PocketSphinxConfiguration = .default) throws {
        try configuration.validate()
        let loaded = try PocketSphinxDecoder.load(
            arguments: configuration.arguments,
            model: "acoustic model \(configuration.acousticModel), language model \(configuration.languageModel), "
                + "dictionary \(configuration.dictionary)")
        let decoder = loaded.decoder
        self.configuration = configuration
        self.decoder = decoder
        self.format = loaded.format
        samplesPerFrame = loaded.samplesPerFrame
        scratch = .allocate(capacity: samplesPerFrame * Self.framesPerCall)
        initialMean = CepstralMeanSnapshot(decoder: decoder)
        languageModelSearch = ps_get_search(decoder).map { String(cString: $0) } ?? "_default"
        if let model = configuration.customLanguageModel {
            try PocketSphinxCustomLanguageModel.install(
                model, weight: configuration.customLanguageModelWeight,
                decoder: decoder, search: languageModelSearch)
        }
    }

    deinit {
        ps_free(decoder)
        scratch.deallocate()
        // The decoder was some 90 MiB in thousands of blocks; glibc keeps freed blocks for reuse and
        // returns a heap's memory only from its top, so without this most of it stays resident (the
        // service frees a recognizer after every request that brings a lexicon; RELIABILITY.md).
        _ = malloc_trim(0)
    }

    public func startUtterance() throws {
        guard utterance == nil else {
            throw EarshotError(
                .invalidParameter, "PocketSphinx: an utterance is already open; end it before starting another")
        }
        // A new stream makes segment frames count from this utterance rather than from the first one
        // (and resets the front end's noise and speech detectors); the cepstral mean is kept.
        guard ps_start_stream(decoder) >= 0, ps_start_utt(decoder) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx could not start an utterance")
        }
        pending = 0
        retained = grammar == nil ? nil : []
        utterance = Utterance(startFrame: nil, endFrame: streamFrame)
    }

    public func accept(_ buffer: AudioBuffer) throws {
        try accept(buffer, frames: 0..<buffer.frameCount)
    }

    /// Converts the frames straight from `buffer` into the decoder's 16-bit scratch block: no copy of
    /// the piece is made on the way.
    public func accept(_ buffer: AudioBuffer, frames: Range<Int>) throws {
        guard var current = utterance else {
            throw EarshotError(
                .invalidParameter, "PocketSphinx: audio given with no utterance open; call startUtterance() first")
        }
        try buffer.requireFormat(format, stage: "PocketSphinx")
        precondition(frames.lowerBound >= 0 && frames.upperBound <= buffer.frameCount, "frames outside the buffer")
        if frames.isEmpty { return }
        let startFrame = buffer.startFrame + Int64(frames.lowerBound)
        if current.startFrame == nil {
            current.startFrame = startFrame
        } else if startFrame != current.endFrame {
            // Word times are counted from the first buffer, so a gap or overlap would misplace every later word.
            throw EarshotError(
                .invalidParameter,
                "PocketSphinx: buffer starts at frame \(startFrame) but the previous one ended at "
                    + "\(current.endFrame); buffers must be contiguous"
            )
        }
        try buffer.samples.withUnsafeBufferPointer { all in
            // Mono (``format``): a frame is a sample.
            let samples = UnsafeBufferPointer(rebasing: all[frames])
            var offset = 0
            while offset < samples.count {
                let count = min(scratch.count - pending, samples.count - offset)
                PCM.convert(
                    UnsafeBufferPointer(rebasing: samples[offset..<offset + count]),
                    to: UnsafeMutableBufferPointer(rebasing: scratch[pending..<pending + count]))
                pending += count
                offset += count
                if pending == scratch.count { try decodePending() }
            }
        }
        current.endFrame = startFrame + Int64(frames.count)
        utterance = current
    }

    /// The best hypothesis over the audio decoded so far (all but the last incomplete 200 ms piece).
    ///
    /// PocketSphinx computes posteriors and word times once the utterance ends, so a partial
    /// hypothesis carries its text only: no confidence and no words.
    public func partialResult() throws -> RecognitionResult? {
        guard let current = utterance else {
            throw EarshotError(.invalidParameter, "PocketSphinx: no utterance is open; call startUtterance() first")
        }
        let text = bestHypothesisText()
        if text.isEmpty { return nil }
        return RecognitionResult(
            hypotheses: [Hypothesis(text: text, confidence: nil, words: [])],
            start: mediaTime(current.startFrame ?? current.endFrame), end: mediaTime(current.endFrame), isPartial: true)
    }

    public func endUtterance() throws -> RecognitionResult {
        guard let current = utterance else {
            throw EarshotError(.invalidParameter, "PocketSphinx: no utterance is open; call startUtterance() first")
        }
        // Close our side first, so a decoder failure still leaves the recognizer ready for a new utterance.
        utterance = nil
        streamFrame = current.endFrame
        do {
            try decodePending()
        } catch {
            ps_end_utt(decoder)
            throw error
        }
        guard ps_end_utt(decoder) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx failed to finish the utterance")
        }
        let startFrame = current.startFrame ?? current.endFrame
        var result = RecognitionResult(
            hypotheses: [], start: mediaTime(startFrame), end: mediaTime(current.endFrame), isPartial: false)
        var best = bestHypothesis(startFrame: startFrame, endFrame: current.endFrame)
        if let samples = retained, let use = grammar?.use, best != nil {
            retained = nil
            best = try secondGrammarPass(
                after: best!, use: use, samples: samples, startFrame: startFrame, endFrame: current.endFrame)
        }
        if let best { result.hypotheses = [best] }
        return result
    }

    /// Ends the open utterance with no result: PocketSphinx closes its search, and nothing is computed
    /// for a result nobody will read (no best path, no word posteriors, no grammar pass), which for a
    /// long utterance is most of what ending it costs.
    public func abandonUtterance() {
        guard let current = utterance else { return }
        utterance = nil
        streamFrame = current.endFrame
        pending = 0
        retained = nil
        ps_end_utt(decoder)
    }

    /// The current search's best hypothesis with its words, or nil when it heard nothing.
    func bestHypothesis(startFrame: Int64, endFrame: Int64) -> Hypothesis? {
        let text = bestHypothesisText()
        if text.isEmpty { return nil }
        let words = recognizedWords(startFrame: startFrame, endFrame: endFrame)
        let confidence = words.isEmpty ? nil : words.map { $0.confidence ?? 0 }.reduce(0, +) / Double(words.count)
        return Hypothesis(text: text, confidence: confidence, words: words)
    }

    /// Forgets what the decoder has learned about the channel, returning it to its state just after
    /// loading: the next utterance decodes exactly as on a fresh recognizer. Not allowed mid-utterance.
    public func resetAdaptation() throws {
        guard utterance == nil else {
            throw EarshotError(.invalidParameter, "PocketSphinx: cannot reset adaptation while an utterance is open")
        }
        initialMean?.restore(into: decoder)
    }

    /// Hands the staged samples to PocketSphinx.
    private func decodePending() throws {
        defer { pending = 0 }
        guard pending > 0 else { return }
        retained?.append(contentsOf: scratch[0..<pending])
        guard ps_process_raw(decoder, scratch.baseAddress, pending, 0, 0) >= 0 else {
            throw EarshotError(.recognizerFailed, "PocketSphinx failed to decode audio")
        }
    }

    /// The decoder's best hypothesis with runs of spaces collapsed; "" when it has none.
    private func bestHypothesisText() -> String {
        var score: Int32 = 0
        guard let hypothesis = ps_get_hyp(decoder, &score) else { return "" }
        return String(cString: hypothesis).split(separator: " ").joined(separator: " ")
    }

    /// The best path's words, without fillers, placed in media time (seconds on the stream's clock).
    ///
    /// Frames are counted from the best path's first segment, which starts the utterance: with
    /// ``PocketSphinxConfiguration/removeSilence`` 5prealpha numbers an utterance holding a pause from
    /// its last speech run instead (the frames it dropped still shift the words after them).
    private func recognizedWords(startFrame: Int64, endFrame: Int64) -> [TimedWord] {
        let logmath = ps_get_logmath(decoder)
        let frameLength = Int64(samplesPerFrame)
        var words: [TimedWord] = []
        // ps_seg_next frees the iterator when it returns nil, so walking to the end leaks nothing.
        var segment = ps_seg_iter(decoder)
        var origin: Int32?
        while let current = segment {
            defer { segment = ps_seg_next(current) }
            var first: Int32 = 0
            var last: Int32 = 0
            ps_seg_frames(current, &first, &last)
            if origin == nil { origin = first }
            first -= origin!
            last -= origin!
            var acoustic: Int32 = 0
            var language: Int32 = 0
            var backoff: Int32 = 0
            let posterior = ps_seg_prob(current, &acoustic, &language, &backoff)
            guard let reported = ps_seg_word(current), let word = Self.spokenWord(String(cString: reported)) else {
                continue
            }
            // The front end pads the last frame with zeros, so it may run up to 159 samples past the audio.
            let start = min(startFrame + Int64(first) * frameLength, endFrame)
            let end = min(startFrame + Int64(last + 1) * frameLength, endFrame)
            words.append(
                TimedWord(
                    word: word, start: mediaTime(start).seconds, end: mediaTime(end).seconds,
                    confidence: Self.probability(logmath_exp(logmath, posterior))))
        }
        return words
    }

    /// The dictionary word PocketSphinx reports, without its alternate-pronunciation suffix (`read(2)`),
    /// or nil for silence and fillers: `<s>`, `</s>`, `<sil>`, `[NOISE]`, `++BREATH++`.
    static func spokenWord(_ word: String) -> String? {
        if word.isEmpty || word.hasPrefix("<") || word.hasPrefix("[") || word.hasPrefix("++") { return nil }
        if word.hasSuffix(")"), let open = word.lastIndex(of: "("), open > word.startIndex,
            word[word.index(after: open)..<word.index(before: word.endIndex)].allSatisfy(\.isNumber)
        {
            return String(word[..<open])
        }
        return word
    }

    func mediaTime(_ frame: Int64) -> MediaTime { MediaTime(frame: frame, sampleRate: format.sampleRate) }

    private static func probability(_ value: Double) -> Double { value.isNaN ? 0 : min(max(value, 0), 1) }
}
