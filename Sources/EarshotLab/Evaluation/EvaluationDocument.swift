import EarshotCore
import Foundation

/// `earshot eval --format json`: one corpus (or one `--group-by` subset), a row per detector.
public struct EvaluationDocument: Encodable {
    public struct Frames: Encodable {
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
        public func encode(to encoder: any Encoder) throws {
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

    public struct Boundaries: Encodable {
        var start: BoundaryStatistics
        var end: BoundaryStatistics
    }

    public struct Detector: Encodable {
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
    public struct Utterance: Encodable {
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
        public func encode(to encoder: any Encoder) throws {
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

    var schemaVersion = ReportSchema.version
    var corpus: String
    /// With `--group-by`: which subset (`noise=music`); nil for the whole corpus.
    public var group: String?
    var files: Int
    var durationSeconds: Double
    var speechSeconds: Double
    var parameters: [String: ParameterValue]
    var detectors: [Detector]

    enum CodingKeys: String, CodingKey {
        case corpus, group, files, parameters, detectors
        case schemaVersion = "schema_version", durationSeconds = "duration_s", speechSeconds = "speech_s"
    }

    public init(
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
public struct EvaluationGroups: Encodable {
    var schemaVersion = ReportSchema.version
    var groups: [EvaluationDocument]

    enum CodingKeys: String, CodingKey {
        case groups
        case schemaVersion = "schema_version"
    }

    public init(groups: [EvaluationDocument]) { self.groups = groups }
}
