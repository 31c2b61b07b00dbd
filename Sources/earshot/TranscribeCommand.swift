public import ArgumentParser
import EarshotClient
import EarshotCodecs
import EarshotCore
import EarshotIO
import EarshotModels
import EarshotRecognizer
import EarshotServiceTranscription
public import EarshotTranscription
import EarshotVAD
import EarshotWhisper
import Foundation

extension TranscriptFormat: FormatFromExtension {
    var extensions: [String] { self == .text ? ["txt", "text"] : [rawValue] }
}

extension TranscriptFormat: ExpressibleByArgument {
    /// `txt`, the earlier name of `text`, is still accepted.
    public init?(argument: String) {
        self.init(rawValue: argument == "txt" ? TranscriptFormat.text.rawValue : argument)
    }
}

struct Transcribe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Transcribe the speech in audio files of any length, with the embedded recognizer or a service.",
        discussion: """
            Reads each FILE (any rate and channel count; it is resampled to 16 kHz mono), cuts it at pauses \
            into segments of at most --max-segment-duration seconds, decodes --jobs segments at once (at most one per core) \
            with the embedded recognizer — Whisper (tiny.en by default, our own inference of its weights) when \
            its model is installed, else PocketSphinx with Debian's pocketsphinx-en-us, saying so — and writes \
            the transcript in media-time order. Needs no network and no service.

            With --service URL, each segment is sent instead to a recognition service: the Speech API \
            (…/speech/v3/speechToText, as earshot serve) or any OpenAI-compatible server \
            (…/v1/audio/transcriptions: whisper.cpp, vLLM, hosted services, earshot serve), the protocol \
            taken from the path or --api. Each segment is sent as one request on --jobs connections at once, \
            asking for word times to place subtitles: to the Speech API as FLAC with X-Arg: WordTimes=true; \
            to an OpenAI-compatible server as WAV with verbose_json and word timestamps (--model, --language; \
            the key is --token, $EARSHOT_TOKEN or $OPENAI_API_KEY). --audio-format overrides the format. A segment the service refuses as busy \
            (503) or loses to a timeout is sent again after 1, 2, 4 … s (or the service's Retry-After, if longer), \
            and one refused a connection after 0.25, 0.5, 1 … s, up to --retries times; a segment that still fails is reported with its time range, and the recording's transcript \
            is not written (exit status 3).

            Formats: text (one line per segment, printed as soon as it and the ones before it are done; \
            with several files, each under a "==> FILE <==" line), \
            json (segments and words with times and confidences; with several files, one document per line), \
            srt and vtt (subtitles of at most two 42-character lines and 7 s; one FILE, or --output-dir).

            --output-dir DIR writes one file per input instead, DIR/NAME.txt, .json, .srt or .vtt (NAME is the \
            file's name without its extension, stdin for -), each appearing when complete; DIR is created if \
            missing. Two inputs that would write the same NAME are refused before any work. --shard I/N \
            transcribes every N-th FILE by path (one task of a job array); with --output-dir the shards \
            together write exactly the files of one run, so there is nothing to merge.

            A file that cannot be read is reported on standard error and the others are transcribed; with \
            several files a summary line ends the run ("3 of 4 files transcribed; 1 failed: …"). The exit \
            status is 4 when some files failed, 2 when every one did. Ctrl-C stops at once and leaves no -o file behind (exit status 130). \
            A progress bar with ETA is drawn on standard error when it is a terminal; --progress ndjson \
            writes JSON lines there instead, for scripts.

            Examples:
              earshot transcribe interview.flac
              earshot transcribe --format srt -o talk.srt talk.wav
              earshot transcribe --jobs 2 --format json day1.flac day2.flac > days.jsonl
              earshot transcribe --format srt --output-dir subtitles/ episodes/*.flac
              sox in.mp3 -t wav - | earshot transcribe -
              earshot transcribe --rate 8000 --encoding s16le call.raw
              earshot transcribe --service http://127.0.0.1:8080/speech/v3/speechToText \\
                  --app-key "$APP_KEY" --secret "$SECRET" --format srt meeting.flac
              OPENAI_API_KEY=… earshot transcribe \\
                  --service https://api.openai.com/v1/audio/transcriptions \\
                  --model whisper-1 --format srt meeting.flac
            """
    )

    @Argument(help: "Audio files to transcribe, or - for standard input.")
    var files: [String]

    @OptionGroup var layout: InputLayoutOptions

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help: "Output format: text (txt), json, srt or vtt. Default: from -o's extension, else text.")
    var formatOption: TranscriptFormat?

    /// --format, else what -o's extension names, else text.
    var format: TranscriptFormat { .resolve(formatOption, output: output, default: .text) }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    @Option(help: "Write one file per input into this directory (created if missing), named after the input.")
    var outputDir: String?

    @Option(
        name: .customLong("jobs"),
        help: "Segments recognized at once, each by its own recognizer (default: the number of cores).")
    var jobOption: Int?

    /// `--jobs`, or the number of cores (optional to the parser, so help shows one default).
    var jobs: Int { jobOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(help: "Longest segment sent to the recognizer, in seconds (the SDK's maxRecordingTime).")
    var maxSegmentDuration: Double = 25

    @Option(help: "Shortest segment a pause may end, in seconds, unless no later pause exists.")
    var minSegmentDuration: Double = 5

    @OptionGroup(title: "Embedded recognizer") var recognizerOptions: RecognizerOptions

    @Option(help: ArgumentHelp(VADModelOptions.detectorHelp.abstract + " Finds the pauses long recordings are cut at."))
    var detector: DetectorKind?

    @OptionGroup var vadModel: VADModelOptions

    @OptionGroup var resampling: ResamplerOptions

    @OptionGroup var progressOptions: ProgressOptions

    @OptionGroup(title: "Recognition service") var serviceOptions: ServiceOptions

    @Option(help: "With --service: times a segment is sent again after a 503 or a connection failure.")
    var retries: Int = 3

    @OptionGroup var shardOptions: ShardOptions

    func validate() throws {
        try TranscriptFormat.check(formatOption, output: output)
        try shardOptions.refuseStandardInput(files)
        guard jobs >= 1 else { throw ValidationError("--jobs: expected at least 1, got \(jobs)") }
        if files.filter({ $0 == InputPath.standardStream }).count > 1 {
            throw ValidationError("standard input (-) can be given only once")
        }
        if outputDir != nil && output != InputPath.standardStream {
            throw ValidationError("-o and --output-dir cannot both be given: one output file, or one per input")
        }
        if files.count > 1 && !format.holdsSeveralRecordings && outputDir == nil {
            throw ValidationError(
                "--format \(format.rawValue) describes one recording; give one FILE, or --output-dir for one file each")
        }
        if outputDir != nil {
            try InputLayoutOptions.requireDistinct(files, by: { Self.outputName($0, format: format) }) {
                "would both be written to \($0) in --output-dir"
            }
        }
        guard retries >= 0 else { throw ValidationError("--retries: expected 0 or more, got \(retries)") }
        // Named by their flags here: the chunker's own check names its fields, and a default the user
        // never typed (--min-segment-duration 5) would otherwise be reported as if given.
        guard maxSegmentDuration.isFinite, maxSegmentDuration >= 0.5 else {
            throw ValidationError("--max-segment-duration \(maxSegmentDuration): expected seconds ≥ 0.5")
        }
        guard minSegmentDuration >= 0, minSegmentDuration < maxSegmentDuration else {
            throw ValidationError(
                "--min-segment-duration (\(minSegmentDuration) s) must be shorter than --max-segment-duration "
                    + "(\(maxSegmentDuration) s); give both, e.g. --max-segment-duration \(maxSegmentDuration) "
                    + "--min-segment-duration \(max(0, maxSegmentDuration / 2))")
        }
        if serviceOptions.service == nil, let option = serviceOptions.serviceOnlyOptionsGiven.first {
            throw ValidationError("\(option) needs --service (without it the embedded recognizer is used)")
        }
        if serviceOptions.service != nil { try recognizerOptions.refuse("the service has its own") }
    }

    /// How each worker recognizes its segments, and the parameters recorded in JSON output.
    private func recognition(settings: TranscriptionSettings) throws
        -> (make: @Sendable () throws -> any SegmentTranscriber, parameters: TranscriptParameters)
    {
        if let service = serviceOptions.service {
            let backends = try serviceOptions.backendFactory()
            let retry: RetryPolicy
            do {
                retry = try RetryPolicy(retries: retries)
            } catch {
                throw ValidationError("--retries: \(error.description)")
            }
            let note: @Sendable (String) -> Void = { line in
                Messages.write(line, level: "warning")
            }
            // One backend per worker: a Speech API client runs one request at a time.
            return (
                {
                    let backend: any RecognitionBackend
                    do throws(SpeechClientError) {
                        backend = try backends.makeBackend()
                    } catch {
                        throw error.earshotError
                    }
                    return ServiceTranscriber(backend: backend, retry: retry, onRetry: note)
                },
                TranscriptParameters(
                    service: service, audioFormat: backends.audioFormat.rawValue,
                    translate: serviceOptions.task == .translate, settings: settings)
            )
        }
        let model = try recognizerOptions.resolve(language: serviceOptions.spokenLanguage, task: serviceOptions.task)
        let parameters: TranscriptParameters
        switch model.engine {
        case .whisper(_, let options):
            parameters = TranscriptParameters(
                whisper: model.id, directory: model.location, beamSize: options.beamSize, language: options.language,
                prompt: options.initialPrompt, translate: options.task == .translate, settings: settings)
        case .pocketSphinx(let configuration):
            parameters = TranscriptParameters(
                embedded: configuration, decoder: recognizerOptions.decoderOptions.preset, settings: settings)
        }
        return ({ embeddedTranscriber(for: try model.makeRecognizer()) }, parameters)
    }

    func run() async throws {
        let inputs = files, format = format
        try OutputFile.refuseReplacing(
            inputs: inputs,
            outputs: outputDir.map { directory in inputs.map { directory + "/" + Self.outputName($0, format: format) } }
                ?? [output],
            option: outputDir == nil ? "-o" : "--output-dir")
        let (detector, models) = try vadModel.resolve(detector)
        let settings = try TranscriptionSettings(
            jobs: jobs,
            chunking: UtteranceChunkerConfiguration(
                maxSegmentDuration: maxSegmentDuration, minSegmentDuration: minSegmentDuration, detector: detector,
                models: models),
            resampler: resampling.resampler, resamplerQuality: resampling.resamplerQuality)
        let (makeTranscriber, parameters) = try recognition(settings: settings)
        // A shard keeps the layout of the whole batch (headers, one JSON document per line).
        let several = files.count > 1
        let files = shardOptions.select(files, command: "transcribe")
        let layout = layout, path = output
        let progressMode = progressOptions.progress
        let directory = try outputDir.map { try CommandOutput.makeDirectory($0, option: "--output-dir") }
        let failures: [EarshotError]
        do {
            failures = try await Interrupts.cancelling {
                let output = try CommandOutput(path: directory == nil ? path : InputPath.standardStream)
                var progress = Progress(totalSeconds: nil, mode: progressMode, command: "transcribe")
                defer { progress.finish() }
                var failures: [EarshotError] = []
                var failedNames: [String] = []
                // Text goes out a segment at a time, as soon as it and the ones before it are done.
                let streamsText = format == .text && directory == nil
                var headed = Set<Int>()
                func head(_ index: Int) throws {
                    guard several, headed.insert(index).inserted else { return }
                    let name = InputLayoutOptions.displayName(files[index])
                    try output.write((headed.count > 1 ? "\n" : "") + "==> \(name) <==\n")
                }
                try await BatchTranscriber.run(
                    count: files.count, settings: settings,
                    open: { index in try layout.open(files[index]) },
                    makeTranscriber: makeTranscriber
                ) { event in
                    switch event {
                    case .progress(let done, let total):
                        progress.update(mediaSeconds: done, totalSeconds: total)
                    case .segment(let index, let segment):
                        guard streamsText else { break }
                        try head(index)
                        if !segment.text.isEmpty { try output.write(segment.text + "\n") }
                    case .transcribed(let index, _) where streamsText:
                        try head(index)
                    case .transcribed(let index, let transcript) where directory != nil:
                        let file = try CommandOutput(
                            path: directory! + "/" + Self.outputName(files[index], format: format))
                        try file.write(try format.render(transcript, parameters: parameters))
                        try file.commit()
                    case .transcribed(_, let transcript):
                        try output.write(try format.render(transcript, parameters: parameters, compact: several))
                    case .failed(let index, _, let error):
                        let name = InputLayoutOptions.displayName(files[index])
                        let message = error.message.contains(name) ? error.message : "\(name): \(error.message)"
                        failures.append(EarshotError(error.code, message))
                        failedNames.append(name)
                        if several {
                            progress.clear()
                            Messages.write(message)
                        }
                    }
                }
                progress.finish()
                if let failure = failures.first, !several { throw failure }
                try output.commit()
                if several { Self.summarize(count: files.count, failed: failedNames) }
                return failures
            }
        } catch let error as EarshotError where error.code == .canceled {
            FileHandle.standardError.write(Data("earshot: \(OutputLedger.interruptedMessage)\n".utf8))
            throw ExitCode(ExitStatus.interrupted.rawValue)
        }
        if !failures.isEmpty {
            throw ExitCode(
                failures.count == files.count ? ExitStatus.invalidInput.rawValue : ExitStatus.partialBatch.rawValue)
        }
    }

    /// The file `--output-dir` gets for `input`: its name without directory and extension (`stdin`
    /// for standard input), and the format's extension.
    static func outputName(_ input: String, format: TranscriptFormat) -> String {
        let base = InputLayoutOptions.stem(input)
        return (base.isEmpty ? "stdin" : base) + "." + format.fileExtension
    }

    /// The batch's last line on standard error: how many files were transcribed, and which failed.
    private static func summarize(count: Int, failed: [String]) {
        var line = "earshot: \(count - failed.count) of \(count) files transcribed"
        if !failed.isEmpty { line += "; \(failed.count) failed: " + failed.joined(separator: ", ") }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
