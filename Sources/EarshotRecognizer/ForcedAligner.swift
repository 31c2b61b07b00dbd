import CPocketSphinx
public import EarshotCore
import Foundation

/// Finds when each word of a known transcript is spoken, by decoding with a grammar that accepts
/// only that transcript.
///
/// Method: the transcript's words become a linear JSGF grammar (`public <utterance> = w1 w2 … wn;`),
/// set as PocketSphinx's search (`ps_set_jsgf_string`, `ps_set_search`). The finite-state search
/// inserts optional silence and filler (breath, noise) between words on its own, so pauses are
/// absorbed rather than forced into a word. The whole file is decoded in one call, and each word's
/// start and end frame is read from the best path (`ps_seg_iter`, `ps_seg_frames`).
///
/// Precision: PocketSphinx works in 10 ms frames, so times are multiples of 10 ms. The boundary
/// error against known boundaries is typically a few tens of milliseconds (measured in
/// `ForcedAlignerTests` and `corpora/README.md` on synthesized speech, whose true extent is known
/// exactly); it is largest at word edges made of low-energy sounds (fricatives, breathy onsets),
/// which the acoustic model may hand to the neighbouring silence.
///
/// Contract: mono audio at the model's rate (16 kHz for Debian's en-us model). Every word must be
/// in the dictionary: a missing one is reported by name (`.invalidInput`) before decoding. If the
/// search cannot reach the end of the grammar (the audio does not contain the transcript, or is too
/// short), alignment fails with `.recognizerFailed` rather than returning a partial answer.
/// Not thread-safe: one aligner per task.
public final class ForcedAligner {
    public let configuration: PocketSphinxConfiguration
    /// The rate the audio must be at.
    public let format: AudioFormat
    private let decoder: OpaquePointer
    private let samplesPerFrame: Int
    private let initialMean: CepstralMeanSnapshot?
    private static let searchName = "earshot_alignment"

    /// Loads the acoustic model and dictionary of `configuration` (its language model is not used).
    public init(configuration: PocketSphinxConfiguration = .default) throws {
        try configuration.validate()
        // Always PocketSphinx's own beams (the accurate preset's): the corpora are aligned with them,
        // and a faster recognizer default must not move their labels.
        let search = configuration.applying(.accurate)
        let arguments = [
            "-hmm", configuration.acousticModel, "-dict", configuration.dictionary,
            "-beam", "\(search.beam)", "-wbeam", "\(search.wordBeam)",
        ]
        let loaded = try PocketSphinxDecoder.load(
            arguments: arguments,
            model: "acoustic model \(configuration.acousticModel), dictionary \(configuration.dictionary)")
        let decoder = loaded.decoder
        self.configuration = configuration
        self.decoder = decoder
        self.format = loaded.format
        samplesPerFrame = loaded.samplesPerFrame
        initialMean = CepstralMeanSnapshot(decoder: decoder)
    }

    deinit { ps_free(decoder) }

    /// The words of `transcript` as the dictionary spells them: lowercased, split on white space.
    public static func words(in transcript: String) -> [String] {
        transcript.lowercased().split(whereSeparator: \.isWhitespace).map(String.init)
    }

    /// Aligns `transcript` to `samples` (mono, at ``format``'s rate, in [-1, 1]).
    ///
    /// Returns one entry per transcript word, in order, with times in seconds from the first sample.
    public func align(transcript: String, samples: [Float]) throws -> [TimedWord] {
        let words = Self.words(in: transcript)
        guard !words.isEmpty else {
            throw EarshotError(.invalidParameter, "forced alignment: the transcript is empty")
        }
        for word in words {
            guard word.allSatisfy({ $0.isLetter || $0 == "'" || $0 == "-" || $0.isNumber }),
                let phones = ps_lookup_word(decoder, word)
            else {
                throw EarshotError(
                    .invalidInput,
                    "forced alignment: the word \"\(word)\" is not in the dictionary \(configuration.dictionary)")
            }
            free(phones)
        }
        guard samples.count >= samplesPerFrame * 10 else {
            throw EarshotError(.invalidInput, "forced alignment: \(samples.count) samples is too short to align")
        }
        let grammar = "#JSGF V1.0;\ngrammar alignment;\npublic <utterance> = \(words.joined(separator: " "));\n"
        guard ps_set_jsgf_string(decoder, Self.searchName, grammar) == 0,
            ps_set_search(decoder, Self.searchName) == 0
        else {
            throw EarshotError(.recognizerFailed, "forced alignment: PocketSphinx rejected the grammar \(grammar)")
        }
        let pcm = samples.map(PCM.int16)
        // Each alignment stands alone: a new stream counts frames from this file's first sample (the
        // decoder otherwise keeps counting across utterances), and the cepstral mean learned from the
        // previous file is forgotten, so a file aligns the same whatever was aligned before it.
        initialMean?.restore(into: decoder)
        guard ps_start_stream(decoder) >= 0, ps_start_utt(decoder) >= 0 else {
            throw EarshotError(.recognizerFailed, "forced alignment: PocketSphinx could not start an utterance")
        }
        let processed = pcm.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1) }
        let ended = ps_end_utt(decoder)
        guard processed >= 0, ended >= 0 else {
            throw EarshotError(.recognizerFailed, "forced alignment: PocketSphinx failed to decode the audio")
        }
        let aligned = alignedWords(sampleCount: samples.count)
        guard aligned.map(\.word) == words else {
            throw EarshotError(
                .recognizerFailed,
                "forced alignment: the search did not reach the end of the transcript (aligned "
                    + "\(aligned.count) of \(words.count) words); the audio may not contain it")
        }
        return aligned
    }

    /// The best path's words (fillers and silences left out), with times clamped to the audio.
    private func alignedWords(sampleCount: Int) -> [TimedWord] {
        let rate = Double(format.sampleRate)
        let duration = Double(sampleCount) / rate
        var words: [TimedWord] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            defer { segment = ps_seg_next(current) }
            guard let reported = ps_seg_word(current),
                let word = PocketSphinxRecognizer.spokenWord(String(cString: reported))
            else { continue }
            var first: Int32 = 0
            var last: Int32 = 0
            ps_seg_frames(current, &first, &last)
            let start = min(Double(Int(first) * samplesPerFrame) / rate, duration)
            let end = min(Double((Int(last) + 1) * samplesPerFrame) / rate, duration)
            words.append(TimedWord(word: word, start: start, end: end))
        }
        return words
    }
}
