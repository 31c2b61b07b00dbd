import EarshotCore
import EarshotLab
import Foundation

/// `earshot eval`'s table for people.
enum EvalTable {
    static func render(_ reports: [DetectorReport], corpus: Corpus) -> String {
        let minutes = corpus.totalDuration / 60
        var text = String(
            format: "%@: %d files, %.1f min, %.0f%% speech\n\n", corpus.directory, corpus.entries.count, minutes,
            corpus.totalDuration > 0 ? corpus.totalSpeech / corpus.totalDuration * 100 : 0)
        text +=
            "frames (10 ms)   precision  recall     F1  false-alarm   AP    start |err| p90  bias    end |err| p90  bias\n"
        for report in reports {
            let start = report.boundaries.start
            let end = report.boundaries.end
            text +=
                pad(report.name, 16)
                + [report.frames.precision, report.frames.recall, report.frames.f1].map { cell($0, 3, 9) }.joined()
                + cell(report.frames.falseAlarmRate, 3, 11) + cell(report.probabilities.averagePrecision(), 3, 7)
                + milliseconds(start.meanAbsolute, 10) + milliseconds(start.p90Absolute, 5)
                + milliseconds(start.bias, 6)
                + milliseconds(end.meanAbsolute, 10) + milliseconds(end.p90Absolute, 5) + milliseconds(end.bias, 6)
                + "\n"
        }
        text += "\nendpointing      latency median   p90   truncated  false-start  wrong-NoAudio  no-endpoint   speed\n"
        for report in reports {
            let metrics = report.endpointing
            text +=
                pad(report.name, 16) + milliseconds(metrics.latency.median, 15) + milliseconds(metrics.latency.p90, 6)
                + percent(metrics.truncationRate, 12) + percent(metrics.falseStartRate, 13)
                + percent(metrics.wrongNoAudioRate, 15) + percent(metrics.missedEndpointRate, 13)
                + (report.realTimeFactor.map { String(format: "%9.0f×", $0) } ?? String(repeating: " ", count: 10))
                + "\n"
        }
        let tolerance = reports.first.map { Int(($0.onTimeTolerance * 1000).rounded()) } ?? 100
        text += "\nvs label oracle  utterances  on time   early    late  missed   delay median   p90   |delay| median\n"
        for report in reports {
            let oracle = report.endpointing.oracle
            text +=
                pad(report.name, 16) + cell(Double(oracle.utterances), 0, 12) + percent(oracle.onTimeRate, 9)
                + percent(oracle.earlyRate, 8) + percent(oracle.lateRate, 8) + percent(oracle.missedRate, 8)
                + milliseconds(oracle.delay.median, 15) + milliseconds(oracle.delay.p90, 6)
                + milliseconds(oracle.absoluteDelay.median, 17) + "\n"
        }
        text += "\nTimes in ms; boundary errors: mean and p90 of |predicted − labelled|, bias = mean signed (+ late).\n"
        text += "Speed: seconds of audio per CPU second, decoding and resampling included.\n"
        text +=
            "Oracle: the same endpointer driven by the labels; delay = endpoint − oracle endpoint (+ late), "
            + "on time within ±\(tolerance) ms, missed = no endpoint where the oracle has one.\n"
        return text
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    private static func cell(_ value: Double?, _ digits: Int, _ width: Int) -> String {
        let text = value.map { String(format: "%.\(digits)f", $0) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }

    private static func milliseconds(_ seconds: Double?, _ width: Int) -> String {
        let text = seconds.map { String(format: "%.0f", $0 * 1000) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }

    private static func percent(_ value: Double?, _ width: Int) -> String {
        let text = value.map { String(format: "%.1f%%", $0 * 100) } ?? "–"
        return String(repeating: " ", count: max(1, width - text.count)) + text
    }
}

/// `earshot eval --format json`.
struct EvalDocument: Encodable {
    struct Frames: Encodable {
        var precision: Double?
        var recall: Double?
        var f1: Double?
        var falseAlarmRate: Double?
        var averagePrecision: Double?
        var speechCells: Int
        var nonSpeechCells: Int

        enum CodingKeys: String, CodingKey {
            case precision, recall, f1
            case falseAlarmRate = "false_alarm_rate", averagePrecision = "average_precision"
            case speechCells = "speech_cells", nonSpeechCells = "non_speech_cells"
        }

        /// Undefined ratios (nothing called speech, no labelled speech) are `null`, never omitted or 0.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(precision, forKey: .precision)
            try container.encode(recall, forKey: .recall)
            try container.encode(f1, forKey: .f1)
            try container.encode(falseAlarmRate, forKey: .falseAlarmRate)
            try container.encode(averagePrecision, forKey: .averagePrecision)
            try container.encode(speechCells, forKey: .speechCells)
            try container.encode(nonSpeechCells, forKey: .nonSpeechCells)
        }
    }

    struct Boundaries: Encodable {
        var start: BoundaryStatistics
        var end: BoundaryStatistics
    }

    struct Detector: Encodable {
        var detector: String
        var frames: Frames
        var boundaries: Boundaries
        var endpointing: EndpointMetrics
        var realTimeFactor: Double?
        var prCurve: [ProbabilityScores.Point]?
        var utterances: [Utterance]?

        enum CodingKeys: String, CodingKey {
            case detector, frames, boundaries, endpointing, utterances
            case realTimeFactor = "speed_x_realtime", prCurve = "pr_curve"
        }
    }

    /// One utterance's endpoint next to the label oracle's (`--utterances`).
    struct Utterance: Encodable {
        var path: String
        var labelledEnd: Double?
        var endpoint: Double?
        var reason: String?
        var oracleEndpoint: Double?
        var oracleReason: String?
        var delay: Double?
        var timing: String?

        init(_ result: UtteranceResult, tolerance: Double) {
            path = result.path
            labelledEnd = result.labelled.last?.end
            endpoint = result.endpoint.map { ($0 * 1e6).rounded() / 1e6 }
            reason = result.reason?.rawValue
            oracleEndpoint = result.oracleEndpoint.map { ($0 * 1e6).rounded() / 1e6 }
            oracleReason = result.oracleReason?.rawValue
            delay = result.oracleDelay
            timing = result.timing(tolerance: tolerance)?.rawValue
        }

        enum CodingKeys: String, CodingKey {
            case path, reason, timing
            case delay = "delay_s", labelledEnd = "labelled_end_s", endpoint = "endpoint_s", oracleEndpoint =
                "oracle_endpoint_s"
            case oracleReason = "oracle_reason"
        }

        /// Every key in every row, `null` when absent.
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(path, forKey: .path)
            try container.encode(labelledEnd, forKey: .labelledEnd)
            try container.encode(endpoint, forKey: .endpoint)
            try container.encode(reason, forKey: .reason)
            try container.encode(oracleEndpoint, forKey: .oracleEndpoint)
            try container.encode(oracleReason, forKey: .oracleReason)
            try container.encode(delay, forKey: .delay)
            try container.encode(timing, forKey: .timing)
        }
    }

    var schemaVersion = JSONOutput.reportSchemaVersion
    var corpus: String
    /// With `--group-by`: which subset (`noise=music`); nil for the whole corpus.
    var group: String?
    var files: Int
    var durationSeconds: Double
    var speechSeconds: Double
    var parameters: [String: ParameterValue]
    var detectors: [Detector]

    enum CodingKeys: String, CodingKey {
        case corpus, group, files, parameters, detectors
        case schemaVersion = "schema_version", durationSeconds = "duration_s", speechSeconds = "speech_s"
    }

    init(
        corpus: Corpus, parameters: [String: ParameterValue], reports: [DetectorReport], includeCurve: Bool,
        includeUtterances: Bool = false
    ) {
        self.corpus = corpus.directory
        files = corpus.entries.count
        durationSeconds = (corpus.totalDuration * 1000).rounded() / 1000
        speechSeconds = (corpus.totalSpeech * 1000).rounded() / 1000
        self.parameters = parameters
        detectors = reports.map { report in
            Detector(
                detector: report.name,
                frames: Frames(
                    precision: report.frames.precision, recall: report.frames.recall, f1: report.frames.f1,
                    falseAlarmRate: report.frames.falseAlarmRate,
                    averagePrecision: report.probabilities.averagePrecision(), speechCells: report.frames.speechCells,
                    nonSpeechCells: report.frames.nonSpeechCells),
                boundaries: Boundaries(start: report.boundaries.start, end: report.boundaries.end),
                endpointing: report.endpointing, realTimeFactor: report.realTimeFactor.map { $0.rounded() },
                prCurve: includeCurve ? report.probabilities.curve(thinnedTo: 200) : nil,
                utterances: includeUtterances
                    ? report.results.map { Utterance($0, tolerance: report.onTimeTolerance) } : nil)
        }
    }
}

/// `earshot eval --group-by TAG --format json`: the whole corpus first, then one document per value.
struct EvalGroups: Encodable {
    var schemaVersion = JSONOutput.reportSchemaVersion
    var groups: [EvalDocument]

    enum CodingKeys: String, CodingKey {
        case groups
        case schemaVersion = "schema_version"
    }
}
