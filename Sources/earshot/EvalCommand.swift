import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import EarshotVAD
import Foundation

struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score VAD detectors and the endpointer on a labelled corpus.",
        usage: """
            earshot eval [--detector <detector> ...] [<options>] <corpus>
            earshot eval --merge <part> ... [--format text|json] [-o <file>]
            """,
        discussion: """
            For each detector: frame precision, recall, F1 and false-alarm rate on the 10 ms grid, \
            average precision of its probabilities, speech start/end boundary errors (mean and p90 of \
            the absolute error, bias = mean signed error; + is late), and per utterance the endpoint \
            latency (endpoint − labelled end of speech), truncations (an endpoint on silence before the \
            labelled speech is over), false starts and wrong NoAudio. Endpoints are also compared with the \
            label oracle's — the same endpointer driven by the labels, a VAD that never errs: on time \
            (within --on-time-tolerance, 0.1 s), early, late, or missed (the oracle ends, the detector \
            never does), and the delay (endpoint − oracle endpoint). With --predictions DIR it scores \
            another tool's NAME.prob or NAME.csv files instead, by the same code.

            Shards (a Slurm job array, one task each): --shard I/N scores every N-th corpus file, \
            sorted by path, from the I-th, and writes a partial result (JSON, --format partial, to -o) \
            holding the counts and per-utterance values the figures come from, and what produced it \
            (version, corpus and the SHA-256 of its manifest, shard, every option that changes a \
            figure). eval --merge PART… prints the report of all N parts, exactly as one run prints it \
            (speed is the parts' audio over their CPU time); --format, --pr-curve and --utterances are \
            chosen there. Parts of different runs are refused naming the file and field (exit 2), \
            and so is a shard missing or given twice (exit 1).

            Examples:
              earshot eval corpora/build/noisy
              earshot eval --detector spectral --format json --pr-curve \\
                  corpora/build/noisy > eval.json
              earshot eval --predictions preds/ corpora/build/real
              earshot eval --detector spectral --shard 2/4 \\
                  -o parts/eval.2.json corpora/build/noisy
              earshot eval --merge parts/eval.*.json --format json -o eval.json
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable, FormatFromExtension {
        case text, json, partial
        var extensions: [String] {
            switch self {
            case .text: ["txt", "text"]
            case .json: ["json"]
            case .partial: []
            }
        }
    }

    /// The report's format: --format, else what -o's extension names, else text.
    private var reportFormat: Format { .resolve(format, output: output, default: .text) }

    // Optional only to the parser: `--detector` takes values up to the next option, so in
    // `eval --detector spectral CORPUS` it takes the corpus too; `validate()` hands that back.
    @Argument(help: "A corpus folder holding manifest.jsonl.")
    var corpus: String?

    @Option(
        name: .customLong("detector"), parsing: .upToNextOption,
        help: ArgumentHelp(
            "Detectors to score (default: all; silero when its model is installed): "
                + "\(DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")).",
            valueName: "detector"))
    var detectorNames: [String] = []

    /// The detectors asked for, once `validate()` has checked the names.
    var detector: [DetectorKind] { detectorNames.compactMap(DetectorKind.init(rawValue:)) }

    @OptionGroup var vadModel: VADModelOptions

    @Option(help: "Score NAME.prob / NAME.csv prediction files from this folder instead of running detectors.")
    var predictions: String?

    @OptionGroup var smoothing: SmoothingOptions
    @OptionGroup var endpointing: EndpointingOptions

    @Option(
        name: .shortAndLong,
        help: ArgumentHelp(
            "Output format: text (a table), json, or partial (for --merge; --shard's). Default: from -o's "
                + "extension (.txt, .json), else text.",
            valueName: "format"))
    var format: Format?

    @OptionGroup var shardOptions: ShardOptions

    @Option(
        name: .customLong("merge"), parsing: .upToNextOption,
        help: ArgumentHelp("Print the report of these partial results (every shard of one run).", valueName: "part"))
    var merge: [String] = []

    @Option(name: .customLong("group-by"), help: "Also score each value of this tag separately (e.g. noise, snr_db).")
    var groupBy: String?

    @Flag(help: "Include each detector's precision–recall curve in the JSON.")
    var prCurve = false

    @Flag(help: "Include each utterance's endpoint, the label oracle's, the delay and its timing in the JSON.")
    var utterances = false

    @OptionGroup var run: LabRunOptions
    var onTimeTolerance: Double { run.onTimeTolerance }
    var jobs: Int { run.jobs }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    @OptionGroup var progressOptions: ProgressOptions

    /// Whether this run writes a partial result: `--format partial`, which `--shard` implies.
    var writesPartial: Bool { format == .partial || (format == nil && shardOptions.text != nil) }

    mutating func validate() throws {
        if corpus == nil, let last = detectorNames.last, DetectorKind(rawValue: last) == nil {
            corpus = detectorNames.removeLast()
        }
        try Format.check(format, output: output)
        if !merge.isEmpty { return try validateMerge() }
        guard corpus != nil else { throw ValidationError("Missing expected argument '<corpus>'") }
        if shardOptions.text != nil, let format, format != .partial {
            throw ValidationError(
                "--shard writes a partial result (--format partial) for --merge; "
                    + "give --format \(format.rawValue) to the merge")
        }
        if writesPartial, prCurve || utterances {
            throw ValidationError(
                "--\(prCurve ? "pr-curve" : "utterances") is a choice of the report: give it to --merge "
                    + "(a partial result carries what it needs)")
        }
        for name in detectorNames where DetectorKind(rawValue: name) == nil {
            let names = DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--detector: unknown detector '\(name)'; expected one of \(names)")
        }
    }

    /// `--merge PART…` prints the report of the parts: only the choices of the report may be given.
    private func validateMerge() throws {
        if format == .partial { throw ValidationError("--merge prints a report: --format text or json") }
        let changed = try PartialInput.changedParameters(smoothing, endpointing)
        try PartialInput.refuse([
            ("the corpus", corpus != nil), ("--detector", !detectorNames.isEmpty),
            ("--predictions", predictions != nil),
            ("--group-by", groupBy != nil), ("--shard", shardOptions.text != nil),
            ("--on-time-tolerance", onTimeTolerance != OracleTiming.defaultTolerance),
            (changed.first ?? "", !changed.isEmpty),
        ])
    }

    func run() async throws {
        try CommandOutput.check(output)
        try OutputFile.refuseReplacing(inputs: merge, outputs: [output], option: "-o")
        if !merge.isEmpty {
            let parts: [PartialResult<EvaluationScores>] = try PartialInput.read(merge, command: "eval")
            let scores = try EvaluationScores.merged(parts.map(\.result))
            return try write(scores, parameters: parts[0].parameters)
        }
        let whole = try Corpus.load(directory: corpus ?? ".")
        try OutputFile.refuseReplacing(inputs: whole.inputPaths, outputs: [output], option: "-o")
        let shard = shardOptions.shard ?? .whole
        let selected = shard.select(whole)
        let subset = Corpus(directory: whole.directory, entries: selected.map(\.entry))
        let smoothingConfiguration = try smoothing.configuration()
        let endpointerConfiguration = try endpointing.configuration()
        let parameters = EvaluationSettings(smoothing: smoothingConfiguration, endpointer: endpointerConfiguration)
            .parameters.filter { $0.key != "detector" }

        // Each detector runs once over the corpus (or this shard of it); groups are scored from the same tracks.
        var scorers: [(name: String, settings: EvaluationSettings, tracks: [DetectorTrack], cpuSeconds: Double)] = []
        if let predictions {
            let tracks = try subset.entries.map { try PredictionFiles.track(for: $0, in: predictions) }
            var settings = EvaluationSettings(smoothing: smoothingConfiguration, endpointer: endpointerConfiguration)
            settings.onTimeTolerance = onTimeTolerance
            scorers.append(("predictions", settings, tracks, 0))
        } else {
            let models = try vadModel.models(for: detector.isEmpty ? nil : detector)
            let kinds =
                detector.isEmpty ? DetectorKind.allCases.filter { !$0.needsModel || models.silero != nil } : detector
            let progress = CountProgress(mode: progressOptions.progress, command: "eval")
            for kind in kinds {
                progress.begin(kind.rawValue)
                let total = subset.entries.count
                let (tracks, cpuSeconds) = try await Evaluation.tracks(
                    for: subset, detector: kind, models: models, jobs: jobs
                ) {
                    progress.update(done: $0, of: total)
                }
                var settings = EvaluationSettings(
                    detector: kind, smoothing: smoothingConfiguration, endpointer: endpointerConfiguration,
                    models: models)
                settings.onTimeTolerance = onTimeTolerance
                scorers.append((kind.rawValue, settings, tracks, cpuSeconds))
            }
            progress.finish()
        }
        let scores = try await EvaluationScores.score(
            selected, of: whole, groupBy: groupBy, scorers: scorers, jobs: jobs)
        guard writesPartial else { return try write(scores, parameters: parameters) }
        var options: [String: ParameterValue] = [
            "detectors": .name(scorers.map(\.name).joined(separator: ",")),
            "on_time_tolerance_s": .number(onTimeTolerance),
        ]
        options["predictions"] = predictions.map(ParameterValue.name)
        options["group_by"] = groupBy.map(ParameterValue.name)
        let part = PartialResult(
            command: "eval", earshotVersion: Earshot.configuration.version, shard: shard, corpus: whole.directory,
            corpusSHA256: try PartialSet.fingerprint(of: whole), parameters: parameters, options: options,
            result: scores)
        let file = try CommandOutput(path: output)
        try file.write(try part.json())
        try file.commit()
    }

    /// The report of a run, or of merged parts: a table per group, or the JSON document(s).
    private func write(_ scores: EvaluationScores, parameters: [String: ParameterValue]) throws {
        let output = try CommandOutput(path: output)
        var documents: [EvaluationDocument] = []
        for group in scores.reports() {
            switch reportFormat {
            case .text, .partial:
                if let name = group.group { try output.write("\n== \(name)\n") }
                try output.write(EvaluationTable.render(group.reports, corpus: group.corpus))
            case .json:
                var document = EvaluationDocument(
                    corpus: group.corpus, parameters: parameters, reports: group.reports, includeCurve: prCurve,
                    includeUtterances: utterances)
                document.group = group.group
                documents.append(document)
            }
        }
        if reportFormat == .json {
            let text =
                documents.count == 1
                ? try JSONOutput.encode(documents[0]) : try JSONOutput.encode(EvaluationGroups(groups: documents))
            try output.write(text)
        }
        try output.commit()
    }
}
