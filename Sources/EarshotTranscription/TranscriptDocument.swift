import EarshotCore
import EarshotDSP
public import EarshotRecognizer
import EarshotVAD
import Foundation

/// The settings that produced a transcript, recorded in every JSON document so it can be reproduced.
public struct TranscriptParameters: Sendable, Hashable, Encodable {
    public var recognizer: String
    /// The embedded model's id (`whisper-tiny.en`, `pocketsphinx-en-us`) and folder.
    public var model: String?
    public var modelDirectory: String?
    /// Whisper's search and prompt.
    public var beamSize: Int?
    public var language: String?
    /// `translate` when Whisper translated into English (absent when it transcribed).
    public var task: String?
    public var prompt: String?
    /// The service's URL and the wire format segments were sent in, for `transcribe --service`.
    public var service: String?
    public var audioFormat: String?
    public var acousticModel: String?
    public var languageModel: String?
    public var dictionary: String?
    /// The embedded recognizer's search: the `--decoder` preset and the PocketSphinx flags it set
    /// (`{"-beam": "1e-48", …}`).
    public var decoder: String?
    public var decoderArguments: [String: String]?
    public var sampleRateHz: Int
    public var resampler: String
    public var resamplerQuality: Int
    public var jobs: Int
    public var maxSegmentSeconds: Double
    public var minSegmentSeconds: Double
    public var detector: String

    /// The parameters of the embedded recognizer with `model`, searched as the `decoder` preset sets
    /// it, run with `settings`.
    public init(
        embedded model: PocketSphinxConfiguration, decoder: PocketSphinxConfiguration.Preset,
        settings: TranscriptionSettings
    ) {
        self.init(recognizer: "pocketsphinx", settings: settings)
        self.model = "pocketsphinx-" + (model.acousticModel as NSString).lastPathComponent
        acousticModel = model.acousticModel
        languageModel = model.languageModel
        dictionary = model.dictionary
        self.decoder = decoder.rawValue
        decoderArguments = Dictionary(uniqueKeysWithValues: model.searchArguments.map { ($0.flag, $0.value) })
    }

    /// The parameters of Whisper with the model `id` from `directory`, searched with `beamSize` (1:
    /// greedy), given `language` and `prompt`, translating into English with `translate`, run with
    /// `settings`.
    public init(
        whisper id: String, directory: String, beamSize: Int, language: String?, prompt: String?,
        translate: Bool = false, settings: TranscriptionSettings
    ) {
        self.init(recognizer: "whisper", settings: settings)
        model = id
        modelDirectory = directory
        self.beamSize = beamSize
        self.language = language
        task = translate ? "translate" : nil
        self.prompt = prompt
    }

    /// The parameters of a recognition service at `url`, sent segments in `audioFormat` (to be
    /// translated, with `translate`), run with `settings`.
    public init(service url: String, audioFormat: String, translate: Bool = false, settings: TranscriptionSettings) {
        self.init(recognizer: "service", settings: settings)
        service = url
        self.audioFormat = audioFormat
        task = translate ? "translate" : nil
    }

    /// What every transcript shares: how it was cut and scheduled.
    private init(recognizer: String, settings: TranscriptionSettings) {
        self.recognizer = recognizer
        sampleRateHz = 16_000
        resampler = settings.resampler.rawValue
        resamplerQuality = settings.resamplerQuality
        jobs = settings.jobs
        maxSegmentSeconds = settings.chunking.maxSegmentDuration
        minSegmentSeconds = settings.chunking.minSegmentDuration
        detector = settings.chunking.detector.rawValue
    }

    enum CodingKeys: String, CodingKey {
        case recognizer, model, service, dictionary, jobs, detector, resampler, decoder, language, task, prompt
        case modelDirectory = "model_directory", beamSize = "beam_size"
        case decoderArguments = "decoder_arguments"
        case audioFormat = "audio_format"
        case acousticModel = "acoustic_model", languageModel = "language_model"
        case sampleRateHz = "sample_rate_hz", resamplerQuality = "resampler_quality"
        case maxSegmentSeconds = "max_segment_s", minSegmentSeconds = "min_segment_s"
    }
}

/// `earshot transcribe --format json`: the transcript of one recording, with the segments it was cut
/// into (media times, why each ends, its text and words) and, for readers of the one-utterance
/// format, every word at the top level too. Times are seconds rounded to the millisecond; confidences
/// are rounded to 0.001; a segment's and the document's confidence is the mean of their words'.
public struct TranscriptDocument: Encodable, Sendable {
    public struct Word: Encodable, Sendable {
        var word: String
        var startSeconds: Double
        var endSeconds: Double
        var confidence: Double

        enum CodingKeys: String, CodingKey {
            case word, confidence
            case startSeconds = "start_s", endSeconds = "end_s"
        }
    }

    public struct Segment: Encodable, Sendable {
        var startSeconds: Double
        var endSeconds: Double
        var cut: String
        var speechSeconds: Double
        var recognized: Bool
        var text: String
        var confidence: Double?
        /// The language the recognizer heard in this segment and its probability (1 when given).
        var language: String?
        var languageProbability: Double?
        var words: [Word]

        enum CodingKeys: String, CodingKey {
            case cut, recognized, text, confidence, language, words
            case startSeconds = "start_s", endSeconds = "end_s", speechSeconds = "speech_s"
            case languageProbability = "language_probability"
        }
    }

    var schemaVersion = 1
    var input: InputDescription
    var durationSeconds: Double
    var parameters: TranscriptParameters
    var text: String
    var confidence: Double?
    /// The recording's language: its first recognized segment's (Whisper detects it on that segment's
    /// first 30 s, or was given it), with that probability; nil from a recognizer that does not say.
    var language: String?
    var languageProbability: Double?
    var segments: [Segment]
    var words: [Word]

    enum CodingKeys: String, CodingKey {
        case input, parameters, text, confidence, language, segments, words
        case schemaVersion = "schema_version", durationSeconds = "duration_s"
        case languageProbability = "language_probability"
    }

    public init(_ transcript: Transcript, parameters: TranscriptParameters) {
        input = transcript.recording
        durationSeconds = Self.rounded(transcript.duration)
        self.parameters = parameters
        text = transcript.text
        segments = transcript.segments.map { segment in
            Segment(
                startSeconds: Self.rounded(segment.start.seconds), endSeconds: Self.rounded(segment.end.seconds),
                cut: segment.cut.rawValue, speechSeconds: Self.rounded(segment.speechSeconds),
                recognized: segment.result != nil, text: segment.text, confidence: Self.meanConfidence(segment.words),
                language: segment.result?.language,
                languageProbability: segment.result?.languageProbability.map(Self.roundedProbability),
                words: segment.words.map(Self.word))
        }
        let heard = transcript.segments.first { $0.result?.language != nil }?.result
        language = heard?.language
        languageProbability = heard?.languageProbability.map(Self.roundedProbability)
        words = transcript.words.map(Self.word)
        confidence = Self.meanConfidence(transcript.words)
    }

    private static func word(_ word: TimedWord) -> Word {
        Word(
            word: word.word, startSeconds: rounded(word.start), endSeconds: rounded(word.end),
            confidence: ((word.confidence ?? 0) * 1000).rounded() / 1000)
    }

    private static func meanConfidence(_ words: [TimedWord]) -> Double? {
        guard !words.isEmpty else { return nil }
        return (words.map { $0.confidence ?? 0 }.reduce(0, +) / Double(words.count) * 1000).rounded() / 1000
    }

    private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }

    /// A language probability to 1e-4 (faster-whisper's figures agree to 1e-3).
    private static func roundedProbability(_ probability: Double) -> Double {
        (probability * 10_000).rounded() / 10_000
    }
}
