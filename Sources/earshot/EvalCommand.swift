import ArgumentParser
import EarshotCore
import EarshotLab
import EarshotVAD
import Foundation

struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score VAD detectors and the endpointer on a labelled corpus.",
        usage: "earshot eval [--detector <detector> ...] [<options>] <corpus>",
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

            Examples:
              earshot eval corpora/build/noisy
              earshot eval --detector spectral --format json --pr-curve \\
                  corpora/build/noisy > eval.json
              earshot eval --predictions preds/ corpora/build/real
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

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

    @Option(name: .shortAndLong, help: "Output format: text (a table) or json.")
    var format: Format = .text

    @Option(name: .customLong("group-by"), help: "Also score each value of this tag separately (e.g. noise, snr_db).")
    var groupBy: String?

    @Flag(help: "Include each detector's precision–recall curve in the JSON.")
    var prCurve = false

    @Flag(help: "Include each utterance's endpoint, the label oracle's, the delay and its timing in the JSON.")
    var utterances = false

    @Option(
        name: .customLong("on-time-tolerance"),
        help: "An endpoint within this many seconds of the label oracle's is on time. Default 0.1.")
    var onTimeTolerance: Double = OracleTiming.defaultTolerance

    @Option(name: .customLong("jobs"), help: "Worker threads (default: the number of cores).")
    var jobOption: Int?

    /// `--jobs`, or the number of cores (optional to the parser, so help shows one default).
    var jobs: Int { jobOption ?? ProcessInfo.processInfo.activeProcessorCount }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    @OptionGroup var progressOptions: ProgressOptions

    mutating func validate() throws {
        if corpus == nil, let last = detectorNames.last, DetectorKind(rawValue: last) == nil {
            corpus = detectorNames.removeLast()
        }
        guard corpus != nil else { throw ValidationError("Missing expected argument '<corpus>'") }
        for name in detectorNames where DetectorKind(rawValue: name) == nil {
            let names = DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError("--detector: unknown detector '\(name)'; expected one of \(names)")
        }
        guard jobs >= 1 else { throw ValidationError("--jobs: expected at least 1, got \(jobs)") }
        try OnTimeToleranceCheck.validate(onTimeTolerance)
    }

    func run() async throws {
        try CommandOutput.check(output)
        let whole = try Corpus.load(directory: corpus ?? ".")
        let smoothingConfiguration = try smoothing.configuration()
        let endpointerConfiguration = try endpointing.configuration()
        let parameters = EvaluationSettings(smoothing: smoothingConfiguration, endpointer: endpointerConfiguration)
            .parameters.filter { $0.key != "detector" }

        // Each detector runs once over the whole corpus; groups are scored from the same tracks.
        var scorers: [(name: String, settings: EvaluationSettings, tracks: [DetectorTrack], cpuSeconds: Double)] = []
        if let predictions {
            let tracks = try whole.entries.map { try PredictionFiles.track(for: $0, in: predictions) }
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
                let total = whole.entries.count
                let (tracks, cpuSeconds) = try await Evaluation.tracks(
                    for: whole, detector: kind, models: models, jobs: jobs
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

        var groups: [(name: String?, indices: [Int])] = [(nil, Array(whole.entries.indices))]
        if let groupBy {
            let value = { (index: Int) in whole.entries[index].tags[groupBy] ?? "none" }
            for name in Set(whole.entries.indices.map(value)).sorted() {
                groups.append(("\(groupBy)=\(name)", whole.entries.indices.filter { value($0) == name }))
            }
        }
        let output = try CommandOutput(path: output)
        var documents: [EvalDocument] = []
        for group in groups {
            let corpus = Corpus(directory: whole.directory, entries: group.indices.map { whole.entries[$0] })
            let share = corpus.totalDuration / max(whole.totalDuration, 1e-9)
            var reports: [DetectorReport] = []
            for scorer in scorers {
                var report = try await Evaluation.score(
                    group.indices.map { scorer.tracks[$0] }, corpus: corpus, settings: scorer.settings,
                    name: scorer.name, jobs: jobs)
                report.detectorSeconds = scorer.cpuSeconds * share
                reports.append(report)
            }
            switch format {
            case .text:
                if let name = group.name { try output.write("\n== \(name)\n") }
                try output.write(EvalTable.render(reports, corpus: corpus))
            case .json:
                var document = EvalDocument(
                    corpus: corpus, parameters: parameters, reports: reports, includeCurve: prCurve,
                    includeUtterances: utterances)
                document.group = group.name
                documents.append(document)
            }
        }
        if format == .json {
            let text =
                documents.count == 1
                ? try JSONOutput.encode(documents[0]) : try JSONOutput.encode(EvalGroups(groups: documents))
            try output.write(text)
        }
        try output.commit()
    }
}
