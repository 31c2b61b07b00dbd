public import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import EarshotVAD
import Foundation

struct Sweep: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the endpointer over a labelled corpus for a grid of settings: latency versus truncation.",
        usage: """
            earshot sweep <corpus> --grid <grid> ... [<options>]
            earshot sweep --merge <part> ... [--format csv|json] [-o <file>]
            """,
        discussion: """
            One row per setting: median and p90 endpoint latency (endpoint − labelled end of speech, in \
            seconds), truncation rate (utterances cut off by a silence endpoint inside their labelled \
            speech), false-start and wrong-NoAudio rates, and whether the setting is on the Pareto front \
            of latency versus truncation (pareto = 1); then the endpoints against the label oracle's (the \
            same endpointer driven by the labels): on-time, early, late and missed rates (on time within \
            --on-time-tolerance, 0.1 s), and the median and p90 of the delay (endpoint − oracle endpoint) \
            and the median of its absolute value. Each detector runs once over the corpus; rows are \
            replayed on all cores and come out in grid order. With -o FILE the table is rewritten \
            atomically after every finished row, so an interrupted sweep loses nothing and --resume \
            continues it.

            Grid: --grid NAME=V1,V2,… or --grid NAME=START:STOP:STEP (STOP included), one per parameter; \
            names: \(SweepParameter.allCases.map(\.rawValue).joined(separator: ", ")). Parameters not in \
            the grid take the values of the flags below (the SDK's defaults unless given).

            Shards (a Slurm job array, one task each): --shard I/N computes every N-th setting in grid \
            order, from the I-th, over the whole corpus, and writes a partial result (JSON, --format \
            partial, to -o) with those rows and what produced them (version, corpus and the SHA-256 of \
            its manifest, grid, parameters). sweep --merge PART… prints the table of all N parts, \
            exactly as one run prints it, the Pareto column computed over all rows. Parts of \
            different runs are refused naming the file and field (exit 2), and so is a shard missing \
            or given twice (exit 1).

            Examples:
              earshot sweep corpora/build/noisy --grid endingSilence=0.2:1.2:0.05 \\
                  -o sweep.csv
              earshot sweep corpora/build/noisy --grid detector=energy,spectral \\
                  --grid endingSilence=0.3,0.5,0.85 --grid onsetThreshold=0.4,0.5,0.6 \\
                  --format json -o sweep.json --resume
              earshot sweep corpora/build/noisy --grid endingSilence=0.2:1.2:0.05 \\
                  --shard 1/4 -o parts/sweep.1.json
              earshot sweep --merge parts/sweep.*.json -o sweep.csv
            """)

    @Argument(help: "A corpus folder holding manifest.jsonl.")
    var corpus: String?

    @Option(
        name: .customLong("grid"),
        help: "A parameter and its values, NAME=V1,V2,… or NAME=START:STOP:STEP (repeatable).")
    var grid: [String] = []

    @Option(
        help: ArgumentHelp(
            "Detector for settings that do not vary it: \(DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")). "
                + "Default: silero when its model is installed, else spectral."))
    var detector: DetectorKind?

    @OptionGroup var vadModel: VADModelOptions

    @OptionGroup var smoothing: SmoothingOptions
    @OptionGroup var endpointing: EndpointingOptions

    enum Format: String, ExpressibleByArgument, CaseIterable, FormatFromExtension {
        case csv, json, partial
        var extensions: [String] { self == .partial ? [] : [rawValue] }
    }

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Output format: csv, json, or partial (for --merge; --shard's). Default: from -o's extension, else csv.",
            valueName: "format"))
    var format: Format?

    @OptionGroup var shardOptions: ShardOptions

    @Option(
        name: .customLong("merge"), parsing: .upToNextOption,
        help: ArgumentHelp("Print the table of these partial results (every shard of one run).", valueName: "part"))
    var merge: [String] = []

    /// Whether this run writes a partial result: `--format partial`, which `--shard` implies.
    var writesPartial: Bool { format == .partial || (format == nil && shardOptions.text != nil) }

    /// The table's format (csv unless json was asked for).
    var tableFormat: SweepTable.Format { Format.resolve(format, output: output, default: .csv) == .json ? .json : .csv }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (rewritten after every row).")
    var output: String = "-"

    @OptionGroup var progressOptions: ProgressOptions

    @Flag(help: "Keep the finished rows of an earlier run written to --output and compute only the rest.")
    var resume = false

    @OptionGroup var run: LabRunOptions
    var onTimeTolerance: Double { run.onTimeTolerance }
    var jobs: Int { run.jobs }

    func validate() throws {
        try Format.check(format, output: output)
        if !merge.isEmpty { return try validateMerge() }
        guard corpus != nil else { throw ValidationError("Missing expected argument '<corpus>'") }
        guard !grid.isEmpty else { throw ValidationError("give at least one --grid NAME=VALUES") }
        if resume, output == "-" { throw ValidationError("--resume needs --output FILE (the sweep to continue)") }
        if shardOptions.text != nil, let format, format != .partial {
            throw ValidationError(
                "--shard writes a partial result (--format partial) for --merge; "
                    + "give --format \(format.rawValue) to the merge")
        }
        if resume, writesPartial {
            throw ValidationError("--resume continues a csv or json table; a shard is run again whole")
        }
    }

    /// `--merge PART…` prints the table of the parts: only the choices of the output may be given.
    private func validateMerge() throws {
        if format == .partial { throw ValidationError("--merge prints a table: --format csv or json") }
        let changed = try PartialInput.changedParameters(smoothing, endpointing)
        try PartialInput.refuse([
            ("the corpus", corpus != nil), ("--grid", !grid.isEmpty), ("--detector", detector != nil),
            ("--shard", shardOptions.text != nil), ("--resume", resume),
            ("--on-time-tolerance", onTimeTolerance != OracleTiming.defaultTolerance),
            (changed.first ?? "", !changed.isEmpty),
        ])
    }

    func run() async throws {
        try CommandOutput.check(output)
        try OutputFile.refuseReplacing(inputs: merge, outputs: [output], option: "-o")
        if !merge.isEmpty {
            let parts: [PartialResult<SweepRows>] = try PartialInput.read(merge, command: "sweep")
            guard case .name(let specification) = parts[0].options["grid"] else {
                throw EarshotError(.invalidInput, "\(merge[0]): field 'options.grid' is missing")
            }
            let grid = try SweepGrid(parsing: specification.split(separator: " ").map(String.init))
            let table = try SweepRows.table(merging: parts.map(\.result), grid: grid)
            return try CommandOutput.replace(
                output, with: tableFormat == .csv ? table.csv() : try table.json(parameters: parts[0].parameters))
        }
        let grid = try SweepGrid(parsing: grid)
        if !endpointing.rules.isEmpty, grid.axes.contains(where: { $0.parameter == .tuning(.endingSilence) }) {
            throw EarshotError(
                .invalidParameter,
                "sweep grid endingSilence: has no effect with --rule (the rules replace endingSilence); drop one")
        }
        let corpus = try Corpus.load(directory: corpus ?? ".")
        try OutputFile.refuseReplacing(inputs: corpus.inputPaths, outputs: [output], option: "-o")
        let variesSilero = grid.axes.contains { axis in
            axis.parameter == .detector && axis.values.contains { $0 == .name(DetectorKind.silero.rawValue) }
        }
        var (detector, models) = try vadModel.resolve(detector)
        if variesSilero, models.silero == nil { models = try vadModel.models(for: [.silero]) }
        var base = EvaluationSettings(
            detector: detector, smoothing: try smoothing.configuration(), endpointer: try endpointing.configuration(),
            models: models)
        base.onTimeTolerance = onTimeTolerance
        let varied = Set(grid.axes.map(\.parameter.rawValue))
        let parameters = base.parameters.filter { !varied.contains($0.key) }
        let start = try TableResume.start(
            resume: resume, path: output, fresh: SweepTable(grid: grid), rowCount: \.rows.count
        ) { try SweepTable.resume(grid: grid, from: output, format: tableFormat) }

        let progress = CountProgress(mode: progressOptions.progress, command: "sweep")
        let path = output
        let format = tableFormat
        let shard = shardOptions.shard ?? .whole
        let partial = writesPartial
        let fingerprint = try PartialSet.fingerprint(of: corpus)
        let tolerance = base.onTimeTolerance
        let render: @Sendable (SweepTable) throws -> String = { table in
            guard !partial else {
                return try PartialResult(
                    command: "sweep", earshotVersion: Earshot.configuration.version, shard: shard,
                    corpus: corpus.directory, corpusSHA256: fingerprint, parameters: parameters,
                    options: [
                        "grid": .name(grid.specification.joined(separator: " ")),
                        "on_time_tolerance_s": .number(tolerance),
                    ], result: SweepRows(table)
                ).json()
            }
            return format == .csv ? table.csv() : try table.json(parameters: parameters)
        }
        let runner = SweepRunner(corpus: corpus, grid: grid, base: base, jobs: jobs, shard: shard)
        let table = try await runner.run(resuming: start) { table in
            // Standard output gets the table once, at the end; a file gets every finished row at once
            // (a partial result only when complete: a part with rows missing must not be merged).
            guard path != InputPath.standardStream, !partial else { return }
            try CommandOutput.replace(path, with: try render(table), resumable: !table.isComplete)
        } progress: { step in
            switch step {
            case .detector(let kind, let done, let total):
                if done == 1 { progress.begin(kind.rawValue) }
                progress.update(done: done, of: total)
            case .rows(let done, let total):
                if done == 1 { progress.begin("settings") }
                progress.update(done: done, of: total)
            }
        }
        progress.finish()
        try CommandOutput.replace(path, with: try render(table))
    }
}
