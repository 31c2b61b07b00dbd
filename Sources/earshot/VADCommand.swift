import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import EarshotVAD
import Foundation

struct VAD: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "vad",
        abstract: "Find the speech in audio files: segments, or a speech probability every 10 ms.",
        discussion: """
            Each FILE is resampled to 16 kHz mono, run through the detector, and its per-frame \
            probabilities smoothed into speech segments (hysteresis, minimum durations, padding, hangover).

            Formats: csv (start,end per segment, seconds), json, rttm, audacity (a label track), probs \
            (one probability per line; line i covers [10·i, 10·(i+1)) ms whatever the detector's hop), \
            segments (Kaldi's: utt rec start end; rec is the RTTM id) and nemo (a NeMo manifest: one \
            JSON line per segment with audio_filepath, offset and duration). Several files go to one \
            json, rttm, segments or nemo document; with --out DIR every FILE NAME.wav gives \
            DIR/NAME.csv and DIR/NAME.prob, as `earshot eval --predictions DIR` reads them (with --shard I/N \
            every N-th FILE by path, into the same DIR: together the shards write one run's files); \
            --kaldi-dir DIR writes a Kaldi data directory (segments, wav.scp, utt2spk, spk2utt).

            Examples:
              earshot vad talk.wav
              earshot vad --detector energy --threshold 0.6 --format audacity talk.wav \\
                  > labels.txt
              earshot vad --out preds/ corpus/*.wav
              earshot vad --kaldi-dir data/test recordings/*.wav
              earshot vad --format nemo talk.wav > segments.jsonl
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable, FormatFromExtension {
        case csv, json, rttm, audacity, srt, vtt, probs, segments, nemo

        /// The extensions that name a format: csv, json, rttm, srt and vtt their own, and txt Audacity's
        /// label track (what Audacity exports it as).
        var extensions: [String] {
            switch self {
            case .csv, .json, .rttm, .srt, .vtt: [rawValue]
            case .audacity: ["txt"]
            case .probs, .segments, .nemo: []
            }
        }

        /// Formats that hold several files in one document.
        var holdsSeveralFiles: Bool { [.json, .rttm, .segments, .nemo].contains(self) }
    }

    @Argument(help: "Audio files to read, or - for standard input.")
    var files: [String]

    @OptionGroup var layout: InputLayoutOptions

    @Option(help: VADModelOptions.detectorHelp)
    var detector: DetectorKind?

    @OptionGroup var vadModel: VADModelOptions

    @OptionGroup var smoothing: SmoothingOptions

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help: ArgumentHelp(
            "Output format: csv, json, rttm, audacity, srt, vtt (a cue reading \"speech\" per segment), probs, "
                + "segments or nemo. Default: from -o's extension (.csv, .json, .rttm, .srt, .vtt, .txt for "
                + "audacity), else csv."))
    var formatOption: Format?

    /// --format, else what -o's extension names, else csv.
    var format: Format { .resolve(formatOption, output: output, default: .csv) }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    @Option(help: "Write DIR/NAME.csv and DIR/NAME.prob for each input NAME.wav instead of one output.")
    var out: String?

    @Option(
        name: .customLong("kaldi-dir"),
        help: "Write a Kaldi data directory here (segments, wav.scp, utt2spk, spk2utt) instead of one output.")
    var kaldiDirectory: String?

    @OptionGroup var shardOptions: ShardOptions

    @OptionGroup var progressOptions: ProgressOptions

    func validate() throws {
        try Format.check(formatOption, output: output)
        if shardOptions.text != nil, out == nil {
            throw ValidationError(
                "--shard needs --out DIR: each shard writes its own files' NAME.csv and NAME.prob there")
        }
        try shardOptions.refuseStandardInput(files)
        let destinations = [out != nil, kaldiDirectory != nil, output != "-"].filter { $0 }.count
        if destinations > 1 { throw ValidationError("give one of --out DIR, --kaldi-dir DIR and --output FILE") }
        if out == nil, kaldiDirectory == nil, files.count > 1, !format.holdsSeveralFiles {
            throw ValidationError(
                "several files need --out DIR or --kaldi-dir DIR, or --format json, rttm, segments or nemo")
        }
        // NeMo and wav.scp name the audio file for a later reader: standard input has no name to give.
        if kaldiDirectory != nil || (out == nil && format == .nemo), files.contains(InputPath.standardStream) {
            let what = kaldiDirectory != nil ? "--kaldi-dir" : "--format nemo"
            throw ValidationError("\(what) names each audio file for the tools that read it; give files, not - (stdin)")
        }
        if out != nil {
            try InputLayoutOptions.requireDistinct(files, by: InputLayoutOptions.stem) {
                "would both be written to \($0).csv in --out"
            }
        } else if kaldiDirectory != nil || ([.rttm, .segments].contains(format) && files.count > 1) {
            try InputLayoutOptions.requireDistinct(files, by: InputLayoutOptions.stem) {
                "would share the recording id \(RTTM.escaped($0))"
            }
        }
    }

    func run() throws {
        try CommandOutput.check(output)
        try OutputFile.refuseReplacing(inputs: files, outputs: outputPaths, option: outputOption)
        let suffix = (output as NSString).pathExtension.lowercased()
        if formatOption == nil, output != "-", !suffix.isEmpty, Format.named(by: output) == nil {
            // Writing CSV into speech.srt would hand a subtitle editor a file it cannot open. (After the
            // checks that name a worse mistake: an output that is a directory, or one of the inputs.)
            let named = Format.allCases.flatMap { format in format.extensions.map { ".\($0)" } }
            throw ValidationError(
                "-o \(output): .\(suffix) names no format vad writes (\(named.joined(separator: " "))); "
                    + "rename the output or give --format")
        }
        if let out { try CommandOutput.makeDirectory(out, option: "--out") }
        if let kaldiDirectory { try CommandOutput.makeDirectory(kaldiDirectory, option: "--kaldi-dir") }
        if kaldiDirectory != nil || format == .nemo {
            for file in files where file != InputPath.standardStream {
                try KaldiDataDirectory.checkPath(Self.absolute(file))
            }
        }
        let smoothingConfiguration = try smoothing.configuration(defaultProfile: .speech)
        let (detector, models) = try vadModel.resolve(detector)
        let files = shardOptions.select(files, command: "vad")
        var analyses: [Analysis] = []
        var failures = 0
        let progress = CountProgress(mode: progressOptions.progress, command: "vad")
        progress.begin("files")
        defer { progress.finish() }
        for (index, file) in files.enumerated() {
            defer { progress.update(done: index + 1, of: files.count) }
            do {
                let analysis = try analyze(file, detector: detector, models: models, smoothing: smoothingConfiguration)
                if let out { try writeFiles(analysis, into: out) } else { analyses.append(analysis) }
            } catch let error as EarshotError where files.count > 1 {
                progress.clear()
                progress.recordFailure()
                Messages.write(error.message)
                failures += 1
            }
        }
        if let kaldiDirectory {
            try writeKaldiDirectory(analyses, into: kaldiDirectory)
        } else if out == nil {
            try writeDocument(analyses, detector: detector, smoothing: smoothingConfiguration)
        }
        if failures > 0 { throw ExitCode(ExitStatus.partialBatch.rawValue) }
    }

    struct Analysis {
        /// The argument it came from (a path, or - for standard input).
        var file: String
        var name: String
        var detection: SpeechDetection
        var segments: [LabeledSegment]

        var duration: Double { detection.duration }
        /// One probability per 10 ms cell.
        var gridProbabilities: [Float] {
            DetectorTrack(
                sampleRate: SpeechDetection.workingRate, hopLength: detection.hopLength, frames: detection.frames
            )
            .gridProbabilities(duration: duration)
        }
    }

    func analyze(_ file: String, detector: DetectorKind, models: DetectorModels, smoothing: SmoothingConfiguration)
        throws -> Analysis
    {
        var source = try layout.open(file)
        let detection = try SpeechDetection.run(
            source: &source, detector: detector, models: models, smoothing: smoothing)
        return Analysis(
            file: file, name: InputLayoutOptions.displayName(file), detection: detection,
            segments: detection.speech.map { LabeledSegment(start: $0.lowerBound, end: $0.upperBound) })
    }

    /// Every file this run would write, to refuse one that is an input before any work.
    private var outputPaths: [String] {
        if let out {
            return files.flatMap { file in
                let stem = InputLayoutOptions.stem(file)
                return [out + "/" + stem + ".csv", out + "/" + stem + ".prob"]
            }
        }
        if let kaldiDirectory {
            return KaldiDataDirectory.fileNames.map { kaldiDirectory + "/" + $0 }
        }
        return [output]
    }

    private var outputOption: String { out != nil ? "--out" : kaldiDirectory != nil ? "--kaldi-dir" : "-o" }

    func writeFiles(_ analysis: Analysis, into directory: String) throws {
        let stem = RTTM.fileID(forPath: analysis.name)
        let csv = try CommandOutput(path: directory + "/" + stem + ".csv")
        try csv.write(SegmentFormat.csv.text(for: analysis.segments, fileID: stem))
        let prob = try CommandOutput(path: directory + "/" + stem + ".prob")
        try prob.write(Self.probabilityLines(analysis.gridProbabilities))
        try csv.commit()
        try prob.commit()
    }

    func writeDocument(_ analyses: [Analysis], detector: DetectorKind, smoothing: SmoothingConfiguration) throws {
        let output = try CommandOutput(path: output)
        switch format {
        case .json:
            try output.write(
                try JSONOutput.encode(
                    VADDocument(
                        detector: detector, smoothing: smoothing,
                        files: analyses.map {
                            VADDocument.File(path: $0.name, duration: $0.duration, segments: $0.segments)
                        })))
        case .probs:
            try output.write(Self.probabilityLines(analyses.first?.gridProbabilities ?? []))
        case .segments:
            try output.write(try Self.kaldiDirectory(analyses).segmentsText)
        case .nemo:
            for analysis in analyses {
                try output.write(NeMoManifest.text(for: analysis.segments, audioPath: Self.absolute(analysis.file)))
            }
        case .srt: try output.write(SegmentSubtitles.srt(analyses.first?.segments ?? []))
        case .vtt: try output.write(SegmentSubtitles.vtt(analyses.first?.segments ?? []))
        case .csv, .rttm, .audacity:
            let segmentFormat = SegmentFormat(rawValue: format.rawValue)!
            for analysis in analyses {
                try output.write(
                    segmentFormat.text(for: analysis.segments, fileID: RTTM.fileID(forPath: analysis.name)))
            }
        }
        try output.commit()
    }

    /// Every file of the data directory appears only when all four are complete.
    func writeKaldiDirectory(_ analyses: [Analysis], into directory: String) throws {
        let outputs = try Self.kaldiDirectory(analyses).files.map { file in
            let output = try CommandOutput(path: directory + "/" + file.name)
            try output.write(file.text)
            return output
        }
        for output in outputs { try output.commit() }
    }

    static func kaldiDirectory(_ analyses: [Analysis]) throws -> KaldiDataDirectory {
        try KaldiDataDirectory(
            analyses.map {
                KaldiDataDirectory.Recording(
                    fileID: RTTM.fileID(forPath: $0.name), path: absolute($0.file), segments: $0.segments)
            })
    }

    /// The absolute path a manifest gives for an input, so that it reads the same from any folder.
    static func absolute(_ file: String) -> String {
        file == InputPath.standardStream ? "stdin" : URL(fileURLWithPath: file).standardizedFileURL.path
    }

    static func probabilityLines(_ values: [Float]) -> String {
        values.map { String(format: "%.4f\n", $0) }.joined()
    }
}
