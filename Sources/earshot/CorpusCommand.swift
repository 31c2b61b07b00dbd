public import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import Foundation

extension CorpusRecipe: ExpressibleByArgument {}
extension SegmentFormat: ExpressibleByArgument {}

/// `earshot corpus`: build, check, import and export labelled corpora.
struct CorpusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "corpus",
        abstract: "Build, validate, import and export labelled corpora (a folder with manifest.jsonl).",
        subcommands: [Build.self, Validate.self, Import.self, Export.self])

    struct Build: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rebuild a corpus from installed Debian packages, deterministically from a seed.",
            discussion: """
                real: pocketsphinx-testdata and alsa-utils recordings labelled by forced alignment. \
                synthetic: eSpeak NG and Flite speech, synthesized in-process, with exact labels. noisy: both mixed with noise, \
                babble, music and clicks at 0/5/10/20 dB SNR, plus files with no speech. long: the \
                pocketsphinx-testdata clips joined with 0.3-2.5 s pauses into two recordings of 10+ minutes. \
                The same seed gives byte-identical audio and manifest.
                """)

        @Argument(help: "Which corpus: real, synthetic, noisy or long.")
        var recipe: CorpusRecipe

        @Option(help: "Folder to write (created if needed).")
        var out: String

        @Option(help: "Seed of every random choice.")
        var seed: UInt64 = 1

        @Option(help: "Build only the first N utterances of each source list (a quick subset); for long, N recordings.")
        var limit: Int?

        @Option(help: "long only: the least length of each recording, in seconds (default 600).")
        var minimumRecordingDuration: Double?

        func validate() throws {
            if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
            if let minimumRecordingDuration, !(minimumRecordingDuration > 0 && minimumRecordingDuration <= 86_400) {
                throw ValidationError("--minimum-recording-duration: expected seconds in (0, 86400]")
            }
            if minimumRecordingDuration != nil && recipe != .long {
                throw ValidationError("--minimum-recording-duration applies to the long corpus only")
            }
        }

        func run() async throws {
            let started = Date()
            let verbose = isatty(STDERR_FILENO) != 0
            let corpus = try await CorpusBuilder.build(
                recipe,
                options: RecipeOptions(seed: seed, limit: limit, minimumRecordingDuration: minimumRecordingDuration),
                into: out
            ) { message in
                if verbose { FileHandle.standardError.write(Data(("\r" + message + "\u{1B}[K").utf8)) }
            }
            if verbose { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            var summary = CorpusSummary(corpus)
            summary.buildSeconds = (Date().timeIntervalSince(started) * 10).rounded() / 10
            summary.seed = seed
            summary.recipe = recipe.rawValue
            print(try JSONOutput.encode(summary), terminator: "")
        }
    }

    struct Validate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a corpus manifest and its audio files; print a summary as JSON.",
            discussion: "Exit status 2 with the file, line and field of the first problem.")

        @Argument(help: "The corpus folder.")
        var directory: String

        func run() throws {
            let corpus = try Corpus.load(directory: directory)
            print(try JSONOutput.encode(CorpusSummary(corpus)), terminator: "")
        }
    }

    struct Import: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a corpus manifest from audio files and their segment labels.",
            discussion: """
                For each audio file in DIR (wav, flac, ogg, aiff), the labels are read from the file of the \
                same name with the format's extension (.rttm, .txt for Audacity, .csv), or, with --labels, \
                from one RTTM file whose file ids are the audio paths (or names) without extension. Writes \
                DIR/manifest.jsonl (or --manifest, - for standard output).
                """)

        @Option(help: "Label format: rttm, audacity or csv.")
        var format: SegmentFormat

        @Option(help: "One RTTM file holding the labels of every recording.")
        var labels: String?

        @Option(help: "Where to write the manifest (default DIR/manifest.jsonl; - for standard output).")
        var manifest: String?

        @Argument(help: "The corpus folder holding the audio.")
        var directory: String

        func run() throws {
            let audio = try audioFiles(in: directory)
            var shared: [String: [LabeledSegment]]?
            if let labels {
                guard format == .rttm else { throw ValidationError("--labels takes an RTTM file; use --format rttm") }
                let text = try readText(labels)
                shared = Dictionary(
                    uniqueKeysWithValues: try RTTM.parse(text, name: labels).map { ($0.fileID, $0.segments) })
            }
            var entries: [CorpusEntry] = []
            for path in audio {
                let stem = (path as NSString).deletingPathExtension
                let segments: [LabeledSegment]
                if let shared {
                    // `corpus export` names recordings by path without extension; other tools often by file name.
                    segments = shared[stem] ?? shared[(stem as NSString).lastPathComponent] ?? []
                } else {
                    let labelPath = directory + "/" + stem + "." + format.fileExtension
                    segments = try format.segments(from: try readText(labelPath), name: labelPath)
                }
                let samples = try RecipeAudio.load(directory + "/" + path)
                let duration = ManifestWriter.roundedSeconds(RecipeAudio.seconds(samples.count))
                entries.append(
                    CorpusEntry(path: path, duration: duration, speech: segments, tags: ["labels": format.rawValue]))
            }
            let target = manifest ?? directory + "/" + Corpus.manifestName
            // Check before writing, so an invalid label never produces a manifest.
            let text = try ManifestWriter.text(for: entries)
            _ = try ManifestReader.entries(from: text, name: target)
            try ManifestWriter.write(entries, to: target)
        }

        private func audioFiles(in directory: String) throws -> [String] {
            guard let enumerator = FileManager.default.enumerator(atPath: directory) else {
                throw EarshotError(.invalidInput, "\(directory): cannot read the folder")
            }
            let extensions: Set<String> = ["wav", "flac", "ogg", "oga", "opus", "aif", "aiff"]
            let found = enumerator.compactMap { $0 as? String }.filter {
                extensions.contains(($0 as NSString).pathExtension.lowercased())
            }.sorted()
            guard !found.isEmpty else { throw EarshotError(.invalidInput, "\(directory): no audio files found") }
            return found
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a corpus's speech segments as RTTM, Audacity labels or CSV.",
            discussion: """
                rttm writes one file for the whole corpus (file ids are the audio paths without extension) \
                to --out (default -, standard output). audacity and csv write one label file per recording \
                into the folder --out, named like the audio with the format's extension.
                """)

        @Option(help: "Label format: rttm, audacity or csv.")
        var format: SegmentFormat

        @Option(help: "Output: a file or - for rttm, a folder for audacity and csv.")
        var out: String = "-"

        @Argument(help: "The corpus folder.")
        var directory: String

        func run() throws {
            let corpus = try Corpus.load(directory: directory)
            if format == .rttm {
                // The ids `vad --format rttm` writes: file names without extension, which must then differ.
                var seen: [String: String] = [:]
                for entry in corpus.entries {
                    let id = RTTM.fileID(forPath: entry.path)
                    if let first = seen[id] {
                        throw EarshotError(
                            .invalidInput, "\(directory): \(first) and \(entry.path) would share the RTTM id \(id)")
                    }
                    seen[id] = entry.path
                }
                let text = corpus.entries.map { RTTM.text(for: $0.speech, fileID: RTTM.fileID(forPath: $0.path)) }
                    .joined()
                let output = try CommandOutput(path: out)
                try output.write(text)
                try output.commit()
                return
            }
            guard out != InputPath.standardStream else {
                throw ValidationError("--format \(format.rawValue) writes one file per recording; give --out a folder")
            }
            for entry in corpus.entries {
                let path = out + "/" + (entry.path as NSString).deletingPathExtension + "." + format.fileExtension
                try FileManager.default.createDirectory(
                    atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                let output = try CommandOutput(path: path)
                try output.write(format.text(for: entry.speech, fileID: entry.path))
                try output.commit()
            }
        }
    }
}

/// Reads a whole text file (or standard input for -), failing with the file's name.
private func readText(_ path: String) throws -> String {
    let data =
        path == InputPath.standardStream
        ? FileHandle.standardInput.readDataToEndOfFile() : FileManager.default.contents(atPath: path)
    guard let data, let text = String(data: data, encoding: .utf8) else {
        throw EarshotError(.invalidInput, "\(path): cannot read the label file (missing, unreadable or not UTF-8)")
    }
    return text
}

/// What `corpus build` and `corpus validate` print.
struct CorpusSummary: Encodable {
    var schemaVersion = JSONOutput.schemaVersion
    var directory: String
    var files: Int
    var filesWithoutSpeech: Int
    var durationS: Double
    var speechS: Double
    var speechFraction: Double
    var recipe: String?
    var seed: UInt64?
    var buildSeconds: Double?

    init(_ corpus: Corpus) {
        directory = corpus.directory
        files = corpus.entries.count
        filesWithoutSpeech = corpus.entries.filter(\.speech.isEmpty).count
        durationS = (corpus.totalDuration * 1000).rounded() / 1000
        speechS = (corpus.totalSpeech * 1000).rounded() / 1000
        speechFraction =
            corpus.totalDuration > 0 ? (corpus.totalSpeech / corpus.totalDuration * 1000).rounded() / 1000 : 0
    }

    enum CodingKeys: String, CodingKey {
        case schemaVersion = "schema_version"
        case directory, files, recipe, seed
        case filesWithoutSpeech = "files_without_speech"
        case durationS = "duration_s"
        case speechS = "speech_s"
        case speechFraction = "speech_fraction"
        case buildSeconds = "build_s"
    }
}
