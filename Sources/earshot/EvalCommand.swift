import ArgumentParser
import EarshotCore
import EarshotLab
import EarshotVAD
import Foundation

struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score VAD detectors and the endpointer on a labelled corpus.",
        discussion: """
            For each detector: frame precision, recall, F1 and false-alarm rate on the 10 ms grid, \
            average precision of its probabilities, speech start/end boundary errors (mean and p90 of \
            the absolute error, bias = mean signed error; + is late), and per utterance the endpoint \
            latency (endpoint − labelled end of speech), truncations (an endpoint on silence before the \
            labelled speech is over), false starts and wrong NoAudio. With --predictions DIR it scores \
            another tool's NAME.prob or NAME.csv files instead, by the same code.

            Examples:
              earshot eval corpora/build/noisy
              earshot eval --detector spectral --format json --pr-curve corpora/build/noisy > eval.json
              earshot eval --predictions preds/ corpora/build/real
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @Argument(help: "A corpus folder holding manifest.jsonl.")
    var corpus: String

    @Option(
        parsing: .upToNextOption,
        help: "Detectors to score (default: all): \(DetectorKind.allCases.map(\.rawValue).joined(separator: ", ")).")
    var detector: [DetectorKind] = DetectorKind.allCases

    @Option(help: "Score NAME.prob / NAME.csv prediction files from this folder instead of running detectors.")
    var predictions: String?

    @OptionGroup var smoothing: SmoothingOptions
    @OptionGroup var endpointing: EndpointingOptions

    @Option(name: .shortAndLong, help: "Output format: text (a table) or json.")
    var format: Format = .text

    @Flag(help: "Include each detector's precision–recall curve in the JSON.")
    var prCurve = false

    @Option(help: "Worker threads (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    func validate() throws {
        guard jobs >= 1 else { throw ValidationError("--jobs: expected at least 1, got \(jobs)") }
    }

    func run() throws {
        let corpus = try Corpus.load(directory: corpus)
        let base = try smoothing.configuration()
        let endpointer = try endpointing.configuration()
        let progress = CountProgress()
        var reports: [DetectorReport] = []
        if let predictions {
            let tracks = try corpus.entries.map { try PredictionFiles.track(for: $0, in: predictions) }
            let settings = EvaluationSettings(smoothing: base, endpointer: endpointer)
            reports.append(
                try Evaluation.score(tracks, corpus: corpus, settings: settings, name: "predictions", jobs: jobs))
        } else {
            for kind in detector {
                progress.begin(kind.rawValue)
                let total = corpus.entries.count
                let (tracks, cpuSeconds) = try Evaluation.tracks(for: corpus, detector: kind, jobs: jobs) {
                    progress.update(done: $0, of: total)
                }
                let settings = EvaluationSettings(detector: kind, smoothing: base, endpointer: endpointer)
                var report = try Evaluation.score(
                    tracks, corpus: corpus, settings: settings, name: kind.rawValue, jobs: jobs)
                report.detectorSeconds = cpuSeconds
                reports.append(report)
            }
            progress.finish()
        }
        let output = try CommandOutput(path: output)
        let parameters = EvaluationSettings(smoothing: base, endpointer: endpointer).parameters.filter {
            $0.key != "detector"
        }
        switch format {
        case .text: try output.write(EvalTable.render(reports, corpus: corpus))
        case .json:
            try output.write(
                try JSONOutput.encode(
                    EvalDocument(corpus: corpus, parameters: parameters, reports: reports, includeCurve: prCurve)))
        }
        try output.commit()
    }
}
