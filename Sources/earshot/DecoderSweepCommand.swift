public import ArgumentParser
import EarshotCore
import EarshotIO
public import EarshotLab
import EarshotRecognizer
import Foundation

struct DecoderSweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "decoder-sweep",
        abstract: "Decode transcribed corpora under a grid of recognizer settings: words versus speed.",
        discussion: """
            Reads the transcribed recordings of each CORPUS once (16 kHz mono), cuts them into \
            utterances where their labels say speech is (pauses under 0.85 s joined, 0.3 s kept on \
            each side), and decodes them all with PocketSphinx under every setting of the grid, one \
            recognizer per setting carrying its cepstral mean through a recording. One row per \
            setting: utterances, reference words, substitutions, deletions, insertions, word error \
            rate (wer: errors over reference words), audio seconds, the decoding thread's CPU \
            seconds and their ratio (rtf), the median and p95 CPU time of ending an utterance (from \
            the last sample fed to the final result: the wait on an idle core, eou_median_s and \
            eou_p95_s), and whether the setting is on the Pareto front of wer versus rtf (pareto = \
            1). --jobs settings run at once, each on its own thread (default 1). With -o FILE the \
            table is rewritten atomically after every finished row, and --resume continues it.

            Grid: --grid NAME=V1,V2,…, one per parameter; names (PocketSphinx's flag): beam (-beam), \
            wordBeam (-wbeam), maxActiveHMMs (-maxhmmpf), frameDownsampling (-ds), topGaussians \
            (-topn), lookaheadWindow (-pl_window), lookaheadBeam (-pl_beam). Parameters not in the \
            grid take the values of --decoder.

            Examples:
              earshot decoder-sweep corpora/long/sample corpora/build/real \\
                  --decoder accurate --grid beam=1e-48,1e-40 --grid topGaussians=2,4 \\
                  -o notebooks/data/decoder-front.csv --resume
              earshot decoder-sweep corpora/long/sample --grid frameDownsampling=1,2,3 \\
                  --format json
            """)

    @Argument(help: "Corpus folders holding manifest.jsonl, every recording with a transcript.")
    var corpora: [String]

    @Option(name: .customLong("grid"), help: "A parameter and its values, NAME=V1,V2,… (repeatable).")
    var grid: [String] = []

    @OptionGroup var decoderOptions: DecoderOptions

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help: ArgumentHelp("Output format: csv or json. Default: from -o's extension, else csv.", valueName: "format"))
    var formatOption: DecoderSweepTable.Format?

    /// --format, else what -o's extension names, else csv.
    var format: DecoderSweepTable.Format { .resolve(formatOption, output: output, default: .csv) }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (rewritten after every row).")
    var output: String = "-"

    @Flag(help: "Keep the finished rows of an earlier run written to --output and compute only the rest.")
    var resume = false

    @Option(help: "Settings decoded at once, each on its own thread.")
    var jobs: Int = 1

    @OptionGroup var progressOptions: ProgressOptions

    func validate() throws {
        try DecoderSweepTable.Format.check(formatOption, output: output)
        guard jobs >= 1 else { throw ValidationError("--jobs: expected at least 1, got \(jobs)") }
        guard !grid.isEmpty else { throw ValidationError("give at least one --grid NAME=V1,V2,…") }
        if resume, output == "-" { throw ValidationError("--resume needs --output FILE (the sweep to continue)") }
    }

    func run() async throws {
        try CommandOutput.check(output)
        let grid = try DecoderGrid(parsing: grid)
        let base = PocketSphinxConfiguration.default(preset: decoderOptions.preset)
        try base.validate()
        let set = try DecoderTestSet(corpora: try corpora.map { try Corpus.load(directory: $0) })
        guard set.utteranceCount > 0 else {
            throw EarshotError(.invalidInput, "\(corpora.joined(separator: ", ")): no labelled speech to decode")
        }
        let varied = Set(grid.axes.map(\.parameter))
        var parameters: [String: ParameterValue] = [
            "decoder": .name(decoderOptions.preset.rawValue), "corpora": .name(corpora.joined(separator: " ")),
            "utterances": .number(Double(set.utteranceCount)), "audio_s": .number(set.audioSeconds),
        ]
        for parameter in DecoderParameter.allCases where !varied.contains(parameter) {
            parameters[parameter.rawValue] = .number(parameter.value(in: base))
        }
        let path = output
        let format = self.format
        let recorded = parameters
        let render: @Sendable (DecoderSweepTable) throws -> String = { table in
            format == .csv ? table.csv() : try table.json(parameters: recorded)
        }
        let start = try TableResume.start(
            resume: resume, path: path, fresh: DecoderSweepTable(grid: grid), rowCount: \.rows.count
        ) { try DecoderSweepTable.resume(grid: grid, from: path, format: format) }
        let progress = CountProgress(mode: progressOptions.progress, command: "decoder-sweep")
        progress.begin("settings")
        let runner = DecoderSweepRunner(set: set, grid: grid, base: base, jobs: jobs)
        let table = try await runner.run(resuming: start) { table in
            guard path != InputPath.standardStream else { return }
            try CommandOutput.replace(path, with: try render(table))
        } progress: { done, total in
            progress.update(done: done, of: total)
        }
        progress.finish()
        try CommandOutput.replace(path, with: try render(table))
    }
}

extension DecoderSweepTable.Format: ExpressibleByArgument, FormatFromExtension {}
