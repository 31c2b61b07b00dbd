import ArgumentParser
import EarshotCore
import EarshotIO
import EarshotLab
import EarshotVAD
import Foundation

struct Endpoint: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the endpointer over a file as if it were a live session, and print its events.",
        discussion: """
            Prints, with media times in seconds, when speech starts and ends, when the endpointer stops \
            listening and why (endingSilence, maxRecordingTime, initialSilenceTimeout, manualStop, \
            endOfInput), and the outcome (audioCaptured, noAudio, audioTooShort, canceled) — the seed SDK's \
            semantics, from the same stages a live session runs. --stop-at, --cancel-at and \
            --extend-timeout act as an application would at those media times.

            Examples:
              earshot endpoint utterance.wav
              earshot endpoint --endingSilence 0.5 --maxInitialSilence inf --format json \\
                  utterance.wav
              earshot endpoint --rule speech:1.0:0 --rule speech:0.4:4 long.wav
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable, FormatFromExtension {
        case text, json
        var extensions: [String] { self == .text ? ["txt", "text"] : [rawValue] }
    }

    @OptionGroup var input: InputOptions

    @Option(help: VADModelOptions.detectorHelp)
    var detector: DetectorKind?

    @OptionGroup var vadModel: VADModelOptions

    @OptionGroup var smoothing: SmoothingOptions
    @OptionGroup var endpointing: EndpointingOptions

    @Option(name: .customLong("stop-at"), help: "Stop listening manually at this media time, seconds.")
    var stopAt: Double?

    @Option(name: .customLong("cancel-at"), help: "Cancel the interaction at this media time, seconds.")
    var cancelAt: Double?

    @Option(
        name: .customLong("extend-timeout"),
        help: "AT:SECONDS — at media time AT, extend the timeouts by SECONDS (repeatable).")
    var extensions: [String] = []

    @Option(
        name: [.customShort("f"), .customLong("format")],
        help: "Output format: text or json. Default: from -o's extension, else text.")
    var formatOption: Format?

    /// --format, else what -o's extension names, else text.
    var format: Format { .resolve(formatOption, output: output, default: .text) }

    @Option(name: .shortAndLong, help: "Write to this file instead of standard output (it appears only when complete).")
    var output: String = "-"

    func validate() throws { try Format.check(formatOption, output: output) }

    func run() throws {
        try CommandOutput.check(output)
        try OutputFile.refuseReplacing(inputs: [input.file], outputs: [output], option: "-o")
        let (detector, models) = try vadModel.resolve(detector)
        let settings = EvaluationSettings(
            detector: detector, smoothing: try smoothing.configuration(), endpointer: try endpointing.configuration(),
            models: models)
        var actions: [(time: Double, action: TrackReplay.Action)] = []
        if let stopAt { actions.append((try Self.time(stopAt, "--stop-at"), .stop)) }
        if let cancelAt { actions.append((try Self.time(cancelAt, "--cancel-at"), .cancel)) }
        for text in extensions {
            let parts = text.split(separator: ":").compactMap { Double($0) }
            guard parts.count == 2 else {
                throw EarshotError(.invalidParameter, "--extend-timeout '\(text)': expected AT:SECONDS, e.g. 1.0:3")
            }
            actions.append((try Self.time(parts[0], "--extend-timeout"), .extendTimeout(parts[1])))
        }
        var source = try input.open()
        let track = try DetectorTrack.compute(source: &source, detector: detector, models: models)
        let replay = try track.replay(smoothing: settings.smoothing, endpointer: settings.endpointer, actions: actions)

        let output = try CommandOutput(path: output)
        switch format {
        case .text:
            for event in replay.events {
                try output.write(String(format: "%8.3f  ", event.time.seconds) + Self.describe(event.kind) + "\n")
            }
        case .json:
            try output.write(
                try JSONOutput.encode(
                    EndpointDocument(input: input.displayName, parameters: settings.parameters, events: replay.events)))
        }
        try output.commit()
    }

    static func time(_ seconds: Double, _ flag: String) throws -> Double {
        guard seconds.isFinite, seconds >= 0 else {
            throw EarshotError(.invalidParameter, "\(flag): expected a media time ≥ 0 s, got \(seconds)")
        }
        return seconds
    }

    static func describe(_ kind: StageEvent.Kind) -> String {
        switch kind {
        case .speechStart: "speechStart"
        case .speechEnd: "speechEnd"
        case .endpoint(let reason): "endpoint \(reason.rawValue)"
        case .outcome(let outcome): "outcome \(outcome.rawValue)"
        case .level: "level"
        }
    }
}

/// `earshot endpoint --format json`.
struct EndpointDocument: Encodable {
    struct Event: Encodable {
        var timeSeconds: Double
        var event: String
        var reason: String?
        var outcome: String?

        enum CodingKeys: String, CodingKey {
            case event, reason, outcome
            case timeSeconds = "time_s"
        }
    }

    var schemaVersion = ReportSchema.version
    var input: String
    var parameters: [String: ParameterValue]
    var events: [Event]
    var endpointSeconds: Double?
    var reason: String?
    var outcome: String?

    enum CodingKeys: String, CodingKey {
        case input, parameters, events, reason, outcome
        case schemaVersion = "schema_version"
        case endpointSeconds = "endpoint_s"
    }

    init(input: String, parameters: [String: ParameterValue], events: [StageEvent]) {
        self.input = input
        self.parameters = parameters
        self.events = events.map { event in
            let time = JSONOutput.seconds(event.time)
            switch event.kind {
            case .speechStart: return Event(timeSeconds: time, event: "speechStart")
            case .speechEnd: return Event(timeSeconds: time, event: "speechEnd")
            case .endpoint(let reason): return Event(timeSeconds: time, event: "endpoint", reason: reason.rawValue)
            case .outcome(let outcome): return Event(timeSeconds: time, event: "outcome", outcome: outcome.rawValue)
            case .level: return Event(timeSeconds: time, event: "level")
            }
        }
        for event in self.events {
            if event.event == "endpoint", endpointSeconds == nil {
                endpointSeconds = event.timeSeconds
                reason = event.reason
            }
            if event.event == "outcome" { outcome = event.outcome }
        }
    }
}
