import ArgumentParser
import EarshotCore
import EarshotDSP
import EarshotIO
import EarshotRecognizer
import Foundation

struct Transcribe: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Transcribe the speech in an audio file with the embedded recognizer.",
        discussion: """
            Reads FILE (any rate and channel count; it is resampled to 16 kHz mono), decodes it with \
            PocketSphinx and the US English model from Debian's pocketsphinx-en-us package, and prints \
            the transcript. Needs no network and no service.

            Examples:
              earshot transcribe interview.flac
              earshot transcribe --format json talk.wav > talk.json
              sox in.mp3 -t wav - | earshot transcribe -
              earshot transcribe --rate 8000 --encoding s16le call.raw
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case txt, json
    }

    @OptionGroup var input: InputOptions

    @Option(
        name: .shortAndLong, help: "Output format: txt (the transcript) or json (words with times and confidences).")
    var format: Format = .txt

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    @Option(
        help:
            "Directory holding a PocketSphinx model laid out as Debian's (en-us/, en-us.lm.bin, cmudict-en-us.dict). Default: $EARSHOT_MODEL_DIR, else /usr/share/pocketsphinx/model/en-us."
    )
    var modelDir: String?

    @Option(help: "Resampler quality, 0 (fastest) to 10 (best).")
    var resamplerQuality: Int = 4

    func run() throws {
        var source = try input.open()
        let modelConfiguration = modelDir.map { PocketSphinxConfiguration(modelDirectory: $0) } ?? .default
        let recognizer = try PocketSphinxRecognizer(configuration: modelConfiguration)
        let resampler = try Resampler(
            inputFormat: source.format, configuration: .init(sampleRate: 16_000, quality: resamplerQuality))
        var chain = resampler.then(RecognizerStage(recognizer: recognizer))
        let output = try CommandOutput(path: output)

        var progress = Progress(totalSeconds: (source as? AudioFileSource)?.duration)
        var results = StageOutput<RecognitionResult>()
        var mediaEnd = MediaTime.zero(sampleRate: source.format.sampleRate)
        while let buffer = try source.read() {
            try chain.process(buffer, into: &results)
            mediaEnd = buffer.endTime
            progress.update(mediaSeconds: mediaEnd.seconds)
        }
        try chain.finish(into: &results)
        progress.finish()
        guard let result = results.items.last else {
            throw EarshotError(.recognizerFailed, "\(input.displayName): the recognizer returned no result")
        }

        switch format {
        case .txt:
            try output.write(result.text + "\n")
        case .json:
            let document = TranscriptDocument(
                input: InputDescription(name: input.displayName, source: source), durationSeconds: mediaEnd.seconds,
                configuration: modelConfiguration, resamplerQuality: resamplerQuality, result: result)
            try output.write(try JSONOutput.encode(document))
        }
        try output.commit()
    }
}

/// `earshot transcribe --format json`.
struct TranscriptDocument: Encodable {
    struct Parameters: Encodable {
        var recognizer = "pocketsphinx"
        var acousticModel: String
        var languageModel: String
        var dictionary: String
        var sampleRateHz = 16_000
        var resamplerQuality: Int

        enum CodingKeys: String, CodingKey {
            case recognizer, dictionary
            case acousticModel = "acoustic_model", languageModel = "language_model"
            case sampleRateHz = "sample_rate_hz", resamplerQuality = "resampler_quality"
        }
    }

    struct Word: Encodable {
        var word: String
        var startSeconds: Double
        var endSeconds: Double
        var confidence: Double

        enum CodingKeys: String, CodingKey {
            case word, confidence
            case startSeconds = "start_s", endSeconds = "end_s"
        }
    }

    var schemaVersion = JSONOutput.schemaVersion
    var input: InputDescription
    var durationSeconds: Double
    var parameters: Parameters
    var text: String
    var confidence: Double?
    var words: [Word]

    enum CodingKeys: String, CodingKey {
        case input, parameters, text, confidence, words
        case schemaVersion = "schema_version", durationSeconds = "duration_s"
    }

    init(
        input: InputDescription, durationSeconds: Double, configuration: PocketSphinxConfiguration,
        resamplerQuality: Int, result: RecognitionResult
    ) {
        self.input = input
        self.durationSeconds = (durationSeconds * 1000).rounded() / 1000
        parameters = Parameters(
            acousticModel: configuration.acousticModel, languageModel: configuration.languageModel,
            dictionary: configuration.dictionary, resamplerQuality: resamplerQuality)
        let best = result.hypotheses.first
        text = best?.text ?? ""
        confidence = best?.confidence.map { ($0 * 1000).rounded() / 1000 }
        words = (best?.words ?? []).map {
            Word(
                word: $0.word, startSeconds: JSONOutput.seconds($0.start), endSeconds: JSONOutput.seconds($0.end),
                confidence: ($0.confidence * 1000).rounded() / 1000)
        }
    }
}
